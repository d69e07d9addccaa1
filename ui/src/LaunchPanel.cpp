#include "qgpu/ui/LaunchPanel.h"

#include <bit>

#include <QComboBox>
#include <QFont>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QCoreApplication>
#include <QEvent>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <cmath>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Launch.h"

namespace qgpu {

namespace {

const QStringList kKinds = {"array", "zeros", "scalar"};
// The Type column's choices, as launch specs name them, and the element types they stand for.
const QStringList kTypes = {"int", "float", "u32", "bool", "i8", "u8", "i16", "u16", "i64", "u64"};
constexpr std::array<ElementType, 10> kTypeOrder = {
    ElementType::I32, ElementType::F32, ElementType::U32, ElementType::Bool, ElementType::I8,
    ElementType::U8,  ElementType::I16, ElementType::U16, ElementType::I64,  ElementType::U64};

// A float as its word; nullopt when the text is no float ("nan", "inf" and "-inf" are floats).
std::optional<int32_t> floatWord(const QString& word) {
    std::string text = word.toLower().toStdString();
    float f = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), f);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    if (std::isnan(f)) return 0x7fffffff;  // a launch spec's one NaN (core's parser reads "nan" so)
    return std::bit_cast<int32_t>(f);
}

// "1, 2, -3" (commas or spaces) as elements; false with `problem` set when a word is no integer of 64 bits
// at most (for floats: no float that fits binary32).
bool words(const QString& text, const QString& where, bool isFloat, std::vector<int64_t>& out, QString* problem) {
    for (const QString& w : text.split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) {
        if (isFloat) {
            std::optional<int32_t> word = floatWord(w);
            if (!word) {
                *problem = where + ": '" + w + "' is not a 32-bit float (write e.g. 1.5, -2e-3, nan or inf)";
                return false;
            }
            out.push_back(*word);
            continue;
        }
        bool ok = w == "true" || w == "false";
        qlonglong v = ok ? qlonglong(w == "true") : w.toLongLong(&ok, 0);
        if (!ok) v = qlonglong(w.toULongLong(&ok, 0));  // a u64 above the signed range keeps its bits
        if (!ok) {
            *problem = where + ": '" + w + "' is not an integer (of 64 bits at most)";
            return false;
        }
        out.push_back(v);  // the launch spec's parser checks it against the argument's type
    }
    return true;
}

Dim3 dim(const std::array<QSpinBox*, 3>& boxes) { return {boxes[0]->value(), boxes[1]->value(), boxes[2]->value()}; }

QString cell(const QTableWidget* t, int row, int column) {
    const QTableWidgetItem* item = t->item(row, column);
    return item ? item->text().trimmed() : QString();
}

QString joined(const std::vector<int64_t>& values, ElementType type) {
    QStringList s;
    for (int64_t v : values) s << QString::fromStdString(formatElement(v, type));
    return s.join(", ");
}

QComboBox* choices(const QStringList& items, int current) {
    auto* box = new QComboBox;
    box->addItems(items);
    box->setCurrentIndex(current);
    return box;
}

}  // namespace

LaunchPanel::LaunchPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QWidget;
    auto* shapes = new QFormLayout;
    for (auto* boxes : {&m_grid, &m_block}) {
        auto* row = new QHBoxLayout;
        for (int axis = 0; axis < 3; ++axis) {
            auto* box = new QSpinBox;
            box->setRange(1, 1024);  // CUDA's block limit: the verdict names the machine's, with the figure
            box->setPrefix(QString("xyz"[axis]) + " ");
            connect(box, &QSpinBox::valueChanged, this, &LaunchPanel::formEdited);
            (*boxes)[size_t(axis)] = box;
            row->addWidget(box);
        }
        shapes->addRow(boxes == &m_grid ? "Grid (blocks)" : "Block (threads)", row);
    }
    m_sharedBytes = new QSpinBox;
    m_sharedBytes->setObjectName("launchSharedBytes");
    m_sharedBytes->setRange(0, MachineSpec::standard().sharedWords * 4);
    m_sharedBytes->setSuffix(" bytes");
    m_sharedBytes->setToolTip(
        "Dynamic shared memory per block, for a kernel's extern __shared__ array "
        "(CUDA's third launch parameter; \"shared_bytes\" in the JSON)");
    connect(m_sharedBytes, &QSpinBox::valueChanged, this, &LaunchPanel::formEdited);
    shapes->addRow("Dynamic shared", m_sharedBytes);
    m_args = new QTableWidget(0, 5);
    m_args->setObjectName("launchArguments");
    m_args->setHorizontalHeaderLabels({"Argument", "Kind", "Type", "Values", "Expect"});
    m_args->horizontalHeader()->setSectionResizeMode(Values, QHeaderView::Stretch);
    m_args->verticalHeader()->hide();
    // Room for three arguments before it scrolls.
    m_args->setMinimumHeight(m_args->horizontalHeader()->sizeHint().height() +
                             3 * m_args->verticalHeader()->defaultSectionSize() + 4);
    m_args->setToolTip(
        "Type: the parameter's element type: int, float (values then read as floats: 1.5, -2e-3, nan, inf),\n"
        "u32 (unsigned), bool (true, false, 0 or 1), i8 (char), u8 (unsigned char), i16 (short), u16.\n"
        "Values: an array's elements (commas or spaces), a zeros array's length, or a scalar.\n"
        "Expect: the elements an array should hold after the launch (optional; checked by Run).");
    connect(m_args, &QTableWidget::itemChanged, this, &LaunchPanel::formEdited);
    auto* formLayout = new QVBoxLayout(form);
    formLayout->addLayout(shapes);
    formLayout->addLayout(argumentButtons());  // above the table, so that a short dock never hides them
    formLayout->addWidget(m_args);

    m_json = new QPlainTextEdit;
    m_json->setObjectName("launchEditor");
    m_json->setFont(QFont("Monospace", 9));
    connect(m_json, &QPlainTextEdit::textChanged, this, &LaunchPanel::jsonEdited);

    m_scroll = new QScrollArea;  // a short dock scrolls the form rather than squeezing the table
    auto* scroll = m_scroll;
    scroll->setWidget(form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* tabs = new QTabWidget;
    tabs->addTab(scroll, "Form");
    tabs->addTab(m_json, "JSON");
    m_verdict = new QLabel;
    m_verdict->setObjectName("launchVerdict");
    m_verdict->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(tabs);
    layout->addWidget(m_verdict);
    check();
}

QHBoxLayout* LaunchPanel::argumentButtons() {
    auto* add = new QPushButton("Add argument");
    auto* remove = new QPushButton("Remove argument");
    m_fromSignature = new QPushButton("From the kernel");
    m_fromSignature->setObjectName("fromSignatureButton");
    m_fromSignature->setToolTip(
        "The arguments the kernel's signature asks for, in its order: an array of one element a thread for each "
        "pointer (0, 1, 2, ...), the thread count for each integer and 1.0 for each float; no expect.");
    m_fromSignature->setEnabled(false);
    connect(m_fromSignature, &QPushButton::clicked, this, &LaunchPanel::fillFromSignature);
    connect(add, &QPushButton::clicked, this, &LaunchPanel::addArgument);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_args->currentRow() < 0) return;
        m_args->removeRow(m_args->currentRow());
        formEdited();
    });
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {add, remove, m_fromSignature}) buttons->addWidget(b);
    buttons->addStretch();
    return buttons;
}

void LaunchPanel::guardWheel(QWidget* w) {
    w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(this);
}

bool LaunchPanel::eventFilter(QObject* watched, QEvent* e) {
    // The wheel over a box the user has not clicked into scrolls the form; it never changes the box.
    auto* w = qobject_cast<QWidget*>(watched);
    if (e->type() != QEvent::Wheel || !w || w->hasFocus()) return QWidget::eventFilter(watched, e);
    QCoreApplication::sendEvent(m_scroll->viewport(), e);
    return true;
}

void LaunchPanel::setSignature(std::vector<ProgramParam> params) {
    m_signature = std::move(params);
    m_fromSignature->setEnabled(!m_signature.empty());
}

void LaunchPanel::fillFromSignature() {
    LaunchSpec launch;
    try {
        launch = parseLaunchSpec(text().toStdString());
    } catch (const std::exception&) {  // the shape boxes still say what the user chose
        launch.grid = {m_grid[0]->value(), m_grid[1]->value(), m_grid[2]->value()};
        launch.block = {m_block[0]->value(), m_block[1]->value(), m_block[2]->value()};
    }
    launch.args = argumentsFor(m_signature, launch.totalThreads());
    launch.expect.clear();
    setText(QString::fromStdString(launchSpecToJson(launch, JsonLayout::Readable)));
}

std::vector<KernelArg> argumentsFor(const std::vector<ProgramParam>& params, int threads) {
    std::vector<KernelArg> out;
    for (const ProgramParam& p : params) {
        KernelArg a{
            .name = p.name, .isArray = p.isArray, .values = {}, .type = p.element, .zeros = false, .fields = {}};
        bool isFloat = p.element == ElementType::F32;
        if (p.structBytes > 0) {  // a struct by value: its bytes, zero
            a.type = ElementType::U8;
            a.values.assign(size_t(p.structBytes), 0);
        } else if (p.isArray) {
            for (int i = 0; i < threads; ++i) a.values.push_back(isFloat ? std::bit_cast<int32_t>(float(i)) : i);
        } else {
            a.values.push_back(isFloat ? std::bit_cast<int32_t>(1.0f) : threads);
        }
        out.push_back(std::move(a));
    }
    return out;
}

QString LaunchPanel::text() const { return m_json->toPlainText(); }

void LaunchPanel::setText(const QString& json) { m_json->setPlainText(json); }

QString LaunchPanel::verdict() const { return m_verdict->text(); }

void LaunchPanel::addArgument() {
    int row = m_args->rowCount();
    {
        QSignalBlocker block(m_args);
        m_args->insertRow(row);
        m_args->setItem(row, Name, new QTableWidgetItem(QString("arg%1").arg(row)));
        m_args->setItem(row, Values, new QTableWidgetItem("1"));
        m_args->setItem(row, Expect, new QTableWidgetItem(""));
        setChoices(row, 1, 0);
    }
    formEdited();
}

void LaunchPanel::setChoices(int row, int kind, int type) {
    auto* kindBox = choices(kKinds, kind);
    auto* typeBox = choices(kTypes, type);
    for (QComboBox* box : {kindBox, typeBox}) {
        connect(box, &QComboBox::currentIndexChanged, this, &LaunchPanel::formEdited);
        guardWheel(box);
    }
    m_args->setCellWidget(row, Kind, kindBox);
    m_args->setCellWidget(row, Type, typeBox);
}

QString LaunchPanel::choice(int row, Column column, const QString& otherwise) const {
    auto* box = qobject_cast<QComboBox*>(m_args->cellWidget(row, column));
    return box ? box->currentText() : otherwise;
}

bool LaunchPanel::formArgument(int row, LaunchSpec& launch, QString* problem) const {
    KernelArg arg;
    arg.name = cell(m_args, row, Name).toStdString();
    QString kind = choice(row, Kind, "array");
    arg.type = kTypeOrder[size_t(std::max<qsizetype>(0, kTypes.indexOf(choice(row, Type, "int"))))];
    QString where = "argument " + (arg.name.empty() ? QString("%1").arg(row + 1) : QString::fromStdString(arg.name));
    std::vector<int64_t> expected;
    // A zeros array's value is its length, an integer whatever its type.
    if (!words(cell(m_args, row, Values), where + ", values", arg.isFloat() && kind != "zeros", arg.values, problem) ||
        !words(cell(m_args, row, Expect), where + ", expect", arg.isFloat(), expected, problem))
        return false;
    if (kind != "array" && arg.values.size() != 1) {
        *problem = where + ": a " + kind + " takes one number" + (kind == "zeros" ? " (the length)" : "");
        return false;
    }
    arg.isArray = kind != "scalar";
    if (kind == "zeros") {
        int64_t n = arg.values[0];
        if (n < 1 || n > kMaxLaunchArrayWords) {
            *problem = where + QString(": a zeros array's length is 1 to %1").arg(kMaxLaunchArrayWords);
            return false;
        }
        arg.zeros = true;
        arg.values.assign(size_t(n), 0);
    }
    if (!expected.empty()) launch.expect.push_back({arg.name, std::move(expected)});
    launch.args.push_back(std::move(arg));
    return true;
}

QString LaunchPanel::formJson(QString* problem) const {
    LaunchSpec launch;
    launch.grid = dim(m_grid);
    launch.block = dim(m_block);
    launch.sharedBytes = m_sharedBytes->value();
    for (int row = 0; row < m_args->rowCount(); ++row)
        if (!formArgument(row, launch, problem)) return {};
    try {  // the form has no rows for symbols: they stay as the JSON gives them
        launch.symbols = parseLaunchSpec(m_json->toPlainText().toStdString(), "launch spec").symbols;
    } catch (const DiagnosticError&) {
    }
    return QString::fromStdString(launchSpecToJson(launch, JsonLayout::Readable));
}

void LaunchPanel::formEdited() {
    if (m_syncing) return;
    QString problem;
    QString json = formJson(&problem);
    if (json.isEmpty()) {  // the JSON keeps the last launch the form spelt right
        m_valid = false;
        m_verdict->setStyleSheet("color: #b00020");
        m_verdict->setText(problem);
        emit edited();
        return;
    }
    m_syncing = true;
    m_json->setPlainText(json);
    m_syncing = false;
    check();
    emit edited();
}

void LaunchPanel::jsonEdited() {
    if (m_syncing) return;
    try {
        LaunchSpec launch = parseLaunchSpec(m_json->toPlainText().toStdString(), "launch spec");
        m_syncing = true;
        fillForm(launch);
        m_syncing = false;
    } catch (const DiagnosticError&) {
        // check() names the problem; the form keeps the last launch that parsed
    }
    check();
    emit edited();
}

void LaunchPanel::fillForm(const LaunchSpec& launch) {
    const std::array<int, 3> grid{launch.grid.x, launch.grid.y, launch.grid.z},
        block{launch.block.x, launch.block.y, launch.block.z};
    for (int axis = 0; axis < 3; ++axis) {
        m_grid[size_t(axis)]->setValue(grid[size_t(axis)]);
        m_block[size_t(axis)]->setValue(block[size_t(axis)]);
    }
    m_sharedBytes->setValue(launch.sharedBytes);
    QSignalBlocker blockTable(m_args);
    m_args->setRowCount(0);
    for (const KernelArg& a : launch.args) {
        int row = m_args->rowCount();
        m_args->insertRow(row);
        bool zeros = a.isArray && std::all_of(a.values.begin(), a.values.end(), [](int64_t v) { return v == 0; });
        auto type = std::find(kTypeOrder.begin(), kTypeOrder.end(), a.type);
        setChoices(row, !a.isArray ? 2 : zeros ? 1 : 0, int(type - kTypeOrder.begin()));
        m_args->setItem(row, Name, new QTableWidgetItem(QString::fromStdString(a.name)));
        m_args->setItem(row, Values,
                        new QTableWidgetItem(zeros ? QString::number(a.values.size()) : joined(a.values, a.type)));
        QString expected;
        for (const auto& [name, values] : launch.expect)
            if (name == a.name) expected = joined(values, a.type);
        m_args->setItem(row, Expect, new QTableWidgetItem(expected));
    }
}

void LaunchPanel::check() {
    try {
        LaunchSpec launch = parseLaunchSpec(m_json->toPlainText().toStdString(), "launch spec");
        MemoryMap map = validateLaunch(launch, MachineSpec::standard());
        int warps = launch.warpsPerBlock(MachineSpec::standard()) * launch.grid.count();
        m_valid = true;
        m_verdict->setStyleSheet("");
        m_verdict->setText(QString("%1 thread block%2 of %3 threads (%4 warp%5), %6 words of global memory")
                               .arg(launch.grid.count())
                               .arg(launch.grid.count() == 1 ? "" : "s")
                               .arg(launch.block.count())
                               .arg(warps)
                               .arg(warps == 1 ? "" : "s")
                               .arg(map.usedWords - MemoryMap::kNullWords));
    } catch (const DiagnosticError& e) {
        m_valid = false;
        m_verdict->setStyleSheet("color: #b00020");
        m_verdict->setText(QString::fromStdString(e.what()));
    }
}

}  // namespace qgpu
