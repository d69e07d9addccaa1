#include "qgpu/ui/TokenStreamView.h"

#include <QInputDialog>
#include <QKeyEvent>
#include <QLineEdit>
#include <QShortcut>
#include <QSignalBlocker>
#include <algorithm>
#include <optional>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/StepListView.h"
#include "qgpu/ui/TokenText.h"

namespace qgpu {

namespace {

// "0x12" as "0x12 (18)"; a decimal stays as it is.
QString withDecimal(const QString& v) {
    bool ok = false;
    uint value = v.toUInt(&ok, 16);
    return v.startsWith("0x") && ok ? QString("%1 (%2)").arg(v).arg(value) : v;
}

QString lanes(const QString& set) { return set == "{}" ? QString("no lanes") : "lanes " + set; }

// What the host feeds: the program image and the launch.
QString hostMeaning(const TokenFields& t) {
    const QStringList& a = t.fields;
    QString spelt = "the word just spelt in bytes";
    if (t.kind == "BYTE" && a.size() == 2)
        return QString("host: byte %1 of the next ROM half word or memory word is %2%3")
            .arg(a[0], withDecimal(a[1]), t.last ? ", its last byte" : "");
    if (t.kind == "ROM" && a.size() >= 3)
        return QString("host: the %1 half of ROM word %2 of block %3 is %4")
            .arg(a[2] == "op" ? "low (op)" : "high (imm)", a[1], a[0], a.size() > 3 ? withDecimal(a[3]) : spelt);
    if (t.kind == "MEM" && !a.isEmpty())
        return QString("host: global word %1 is %2").arg(a[0], a.size() > 1 ? withDecimal(a[1]) : spelt);
    if ((t.kind == "BLOCK" || t.kind == "GRID") && a.size() == 3)
        return QString("host: the launch's %1 is %2 x %3 x %4%5")
            .arg(t.kind == "BLOCK" ? "thread-block shape" : "grid", a[0], a[1], a[2],
                 t.kind == "GRID" ? "; the last token fed: the launch starts" : "");
    return {};
}

// What the model writes: the launch's records.
QString modelMeaning(const TokenFields& t) {
    const QStringList& a = t.fields;
    if (t.kind == "EXEC" && a.size() == 2)
        return QString("model: warp %1 runs block %2 with %3").arg(a[1], a[0], lanes(t.lanes));
    if (t.kind == "VAL" && a.size() == 4)
        return QString("model: byte %1 of the value slot %2 writes in lane %3 is %4%5")
            .arg(a[2], a[0], a[1], withDecimal(a[3]), t.last ? ", its last byte" : "");
    if (t.kind == "RELEASE" && a.size() == 1)
        return QString("model: the thread block's barrier opens; the epoch's parity becomes %1").arg(a[0]);
    if (t.kind == "END") return "model: the launch is over";
    if (t.kind == "FAULT")
        return "model: the launch ends in a fault: a divergent barrier, with " + lanes(t.lanes) + " elsewhere";
    return {};
}

}  // namespace

QString tokenMeaning(const QString& token) {
    std::optional<TokenFields> t = tokenFields(token);
    if (!t) return {};
    QString host = hostMeaning(*t);
    return host.isEmpty() ? modelMeaning(*t) : host;
}

namespace {

// A token's row: its meaning, the tooltip, is worked out when asked for (a launch writes thousands of rows).
// Every row has the size `size`: the list lays out rows of one size (uniformItemSizes) without measuring
// each one's text, which it would otherwise do for every row after each report of a run.
class TokenRow : public QListWidgetItem {
public:
    TokenRow(int index, bool fed, const QString& token, QSize size)
        : QListWidgetItem(QString("%1 %2  %3").arg(index, 6).arg(fed ? "fed    " : "written", token)),
          m_index(index),
          m_fed(fed),
          m_token(token),
          m_size(size) {}
    QVariant data(int role) const override {
        if (role == Qt::SizeHintRole) return m_size;
        if (role != Qt::ToolTipRole) return QListWidgetItem::data(role);
        return QString("token %1, %2: %3").arg(m_index).arg(m_fed ? "fed" : "written").arg(tokenMeaning(m_token));
    }

private:
    int m_index;
    bool m_fed;
    QString m_token;
    QSize m_size;
};

constexpr int kRowCharacters = 56;  // the longest row: a 7-digit number, "written" and an EXEC of four lanes

}  // namespace

TokenStreamView::TokenStreamView(DebugController& debugger, QWidget* parent)
    : QListWidget(parent), m_debugger(debugger) {
    setObjectName("tokenList");
    setFont(QFont("Monospace", 9));
    setUniformItemSizes(true);
    setToolTip(
        "Fed: the program and launch the host gives the model. Written: the tokens the model writes. "
        "Hover a token for its meaning; click one to go to the moment it was written.");
    for (auto signal : {&QListWidget::itemClicked, &QListWidget::itemActivated})
        connect(this, signal, this, [this](QListWidgetItem* it) { moveToRow(row(it)); });
    connect(&debugger, &DebugController::built, this, [this] { clear(); });
    connect(&debugger, &DebugController::backendChanged, this, [this] { clear(); });
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(); });
    auto* find = new QShortcut(QKeySequence::Find, this, nullptr, nullptr, Qt::WidgetShortcut);
    connect(find, &QShortcut::activated, this, [this] {
        bool ok = false;
        QString text = QInputDialog::getText(
            this, "Find a token", "Token text or meaning (VAL(s1, EXEC(b3, lane 2):", QLineEdit::Normal, m_find, &ok);
        if (ok && !text.isEmpty()) findNext(m_find = text);
    });
    auto* again = new QShortcut(QKeySequence::FindNext, this, nullptr, nullptr, Qt::WidgetShortcut);
    connect(again, &QShortcut::activated, this, [this] {
        if (!m_find.isEmpty()) findNext(m_find);
    });
}

int TokenStreamView::findNext(const QString& text) {
    for (int i = 1; i <= count(); ++i) {
        int row = (std::max(currentRow(), -1) + i) % count();
        QListWidgetItem* it = item(row);
        if (!it->text().contains(text, Qt::CaseInsensitive) && !it->toolTip().contains(text, Qt::CaseInsensitive))
            continue;
        // Selecting is not moving: the debugger stays where it is until the row is clicked.
        const QSignalBlocker quiet(this);
        setCurrentRow(row);
        scrollToItem(it);
        return row;
    }
    return -1;
}

void TokenStreamView::keyPressEvent(QKeyEvent* event) {
    int before = currentRow();
    QListWidget::keyPressEvent(event);
    if (currentRow() != before && currentRow() >= 0) moveToRow(currentRow());
}

void TokenStreamView::moveToRow(int row) {
    if (m_fed == 0) return;  // the line saying this backend writes no tokens
    if (row < m_fed)
        m_debugger.moveTo(0);
    else
        m_debugger.moveToToken(size_t(row - m_fed) + 1);
}

void TokenStreamView::showMoment() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    const TokenStream& ts = s->tokens;
    m_fed = int(ts.fed.size());
    if (!s->loaded) return;
    if (ts.fed.empty()) {
        clear();
        auto* note = new QListWidgetItem("The " + s->backend +
                                         " backend writes no tokens: choose the model backend to see them.");
        note->setSizeHint(fontMetrics().size(0, note->text()) + QSize(8, 2));  // the one row sets the size
        addItem(note);
        return;
    }
    // The stream only grows while a program stays loaded (the list is cleared when one loads).
    size_t total = ts.fed.size() + ts.written.size();
    if (size_t(count()) > total || (count() > 0 && item(0)->text().startsWith("The "))) clear();
    QSize size = fontMetrics().size(0, QString(kRowCharacters, '0')) + QSize(8, 2);
    for (size_t i = size_t(count()); i < total; ++i) {
        bool fed = i < ts.fed.size();
        QString text = QString::fromStdString(fed ? ts.fed[i] : ts.written[i - ts.fed.size()]);
        auto* row = new TokenRow(int(i), fed, text, size);
        if (fed) row->setForeground(QColor(120, 120, 120));
        addItem(row);
    }
    int current = int(ts.fed.size() + ts.writtenNow) - 1;  // the last token of the current moment
    {
        const QSignalBlocker quiet(this);  // showing the moment is not choosing a token
        setCurrentRow(current);
    }
    m_reached.show(this, current + 1);
    if (current >= 0) scrollToItem(item(current));
}

}  // namespace qgpu
