#include "qgpu/ui/StepListView.h"

#include <QSignalBlocker>
#include <algorithm>

#include "qgpu/core/Trace.h"
#include "qgpu/ui/DebugController.h"

namespace qgpu {

namespace {
constexpr int kAhead = Qt::UserRole + 1;  // the row is styled as not reached; absent on a row not styled yet
}  // namespace

void ReachedRows::restyle(QListWidget* list, int row, bool ahead) {
    QListWidgetItem* item = list->item(row);
    QVariant was = item->data(kAhead);
    if (was.isValid() && was.toBool() == ahead) return;
    item->setData(kAhead, ahead);
    if (!was.isValid() && !ahead) return;  // a new row, as written
    QFont f = item->font();
    f.setItalic(ahead);
    item->setFont(f);
    // The colour a row had when reached (fed tokens are grey) comes back when it is reached again.
    if (ahead) {
        item->setData(Qt::UserRole, item->data(Qt::ForegroundRole));
        item->setForeground(QColor(175, 175, 175));
    } else {
        item->setData(Qt::ForegroundRole, item->data(Qt::UserRole));
    }
}

void ReachedRows::show(QListWidget* list, int first) {
    int count = list->count();
    if (m_styled > count || (m_styled > 0 && !list->item(m_styled - 1)->data(kAhead).isValid()))
        m_styled = m_first = 0;  // cleared (and maybe filled again): every row is as written
    {
        // One repaint for all the rows, not a model signal for each.
        const QSignalBlocker quiet(list->model());
        for (int i = std::min(m_first, first); i < std::min(std::max(m_first, first), m_styled); ++i)
            restyle(list, i, i >= first);
        for (int i = m_styled; i < count; ++i) restyle(list, i, i >= first);
    }
    list->viewport()->update();
    m_first = first;
    m_styled = count;
}

StepListView::StepListView(DebugController& debugger, QWidget* parent) : QListWidget(parent), m_debugger(debugger) {
    setObjectName("eventList");
    setFont(QFont("Monospace", 9));
    for (auto signal : {&QListWidget::itemClicked, &QListWidget::itemActivated})
        connect(this, signal, this, [this](QListWidgetItem* it) { m_debugger.moveTo(row(it) + 1); });
    connect(&debugger, &DebugController::built, this, [this] { clear(); });
    connect(&debugger, &DebugController::backendChanged, this, [this] { clear(); });
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(); });
}

void StepListView::showMoment() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    if (!s->loaded) return;
    const std::vector<StepEvent>& history = *s->history;
    // Recorded steps never change, so the list only grows while a program stays loaded.
    if (count() > int(history.size())) clear();
    for (size_t i = size_t(count()); i < history.size(); ++i)
        addItem(QString::fromStdString(formatEvent(history[i], s->build->program, s->state.lanesPerWarp)).trimmed());
    if (s->position > 0) setCurrentRow(s->position - 1);
    m_reached.show(this, s->position);
}

}  // namespace qgpu
