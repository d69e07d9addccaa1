#include "qgpu/ui/ResultsView.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Trace.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

namespace qgpu {

namespace {

constexpr size_t kMaxRows = 20000;  // a larger launch shows its first rows; the mismatches are counted over all
const QColor kMismatch(255, 170, 170);

const std::vector<int64_t>* expectedOf(const LaunchSpec& launch, const std::string& name) {
    for (const auto& [array, values] : launch.expect)
        if (array == name) return &values;
    return nullptr;
}

// A cell changed in place (setCell), shaded where the element is not as expected.
void setResultCell(QTableWidget* table, int row, int column, const QString& text, bool wrong) {
    QTableWidgetItem* item = setCell(table, row, column, text);
    QBrush background = wrong ? QBrush(kMismatch) : QBrush();
    if (item->background() != background) item->setBackground(background);
}

}  // namespace

ResultsView::ResultsView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_verdict = new QLabel;
    m_verdict->setObjectName("resultsVerdict");
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableWidget(0, 3);
    m_table->setObjectName("resultsTable");
    m_table->setHorizontalHeaderLabels({"Element", "Value", "Expected"});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setFont(QFont("Monospace", 9));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_verdict);
    layout->addWidget(m_table, 1);
    m_verdict->setText("Build a kernel (Ctrl+B) to see its results here.");
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(*m_debugger.snapshot()); });
}

QString ResultsView::verdict() const { return m_verdict->text(); }

void ResultsView::showMoment(const DebugSnapshot& s) {
    m_mismatches = 0;
    if (!s.loaded) {
        m_table->setRowCount(0);
        return m_verdict->setText("Nothing is loaded: build the kernel (Ctrl+B) to see its results here.");
    }
    int compared = fillRows(s);
    const LaunchSpec& launch = s.build->launch;
    QString check = !launch.hasExpectations()
                        ? QString("The launch spec has no \"expect\" to check the arrays against.")
                    : m_mismatches == 0 ? QString("Every expected array matches (%1 values).").arg(compared)
                                        : QString("NOT AS EXPECTED: %1 of %2 expected values differ, marked below.")
                                              .arg(m_mismatches)
                                              .arg(compared);
    DevicePrintfOutput printed = readDevicePrintf(s.state.global, s.build->map);
    if (const PrintedRecord* failed = printed.failedAssertion())
        check = "A DEVICE ASSERTION FAILED, so the launch fails (CUDA's cudaErrorAssert): " +
                QString::fromStdString(failed->text).trimmed() + " " + check;
    if (auto bad = printfExpectationMismatch(s.state, launch, s.build->map))
        check += " NOT AS EXPECTED: " + QString::fromStdString(*bad) + ".";
    if (s.state.run == RunState::Finished) return m_verdict->setText("The launch finished. " + check);
    if (s.state.run == RunState::Faulted)
        return m_verdict->setText("The launch ended in a machine fault: " + QString::fromStdString(s.state.fault) +
                                  " The arrays hold what the steps before it wrote.");
    m_verdict->setText(QString("The launch has not finished (%1): the values are memory as it stands, %2 of %3 "
                               "expected values as expected so far.")
                           .arg(positionText(s.position))
                           .arg(compared - m_mismatches)
                           .arg(compared));
}

int ResultsView::fillRows(const DebugSnapshot& s) {
    struct Row {
        QString element, value, expected;
        bool wrong;
    };
    std::vector<Row> rows;
    const BuiltProgram& b = *s.build;
    int compared = 0;
    for (const ArrayPlacement& a : b.map.arrays) {
        if (isInternalArray(a)) continue;
        std::vector<int64_t> got = readArray(s.state, a);
        const std::vector<int64_t>* expected = expectedOf(b.launch, a.name);
        for (size_t i = 0; i < got.size(); ++i) {
            bool checked = expected && i < expected->size();
            bool wrong = checked && (*expected)[i] != got[i];
            compared += checked;
            m_mismatches += wrong;
            if (rows.size() >= kMaxRows) continue;
            QString want = checked ? QString::fromStdString(formatElement((*expected)[i], a.type)) : QString();
            rows.push_back({QString("%1[%2]").arg(QString::fromStdString(a.name)).arg(i),
                            QString::fromStdString(formatElement(got[i], a.type)), wrong ? want + "  (differs)" : want,
                            wrong});
        }
    }
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const Row& row = rows[size_t(r)];
        setResultCell(m_table, r, Element, row.element, row.wrong);
        setResultCell(m_table, r, Value, row.value, row.wrong);
        setResultCell(m_table, r, Expected, row.expected, row.wrong);
    }
    return compared;
}

}  // namespace qgpu
