#include "qgpu/ui/StepListView.h"

#include "qgpu/core/Trace.h"
#include "qgpu/ui/DebugController.h"

namespace qgpu {

void showReached(QListWidget* list, int first) {
    for (int i = 0; i < list->count(); ++i) {
        QListWidgetItem* item = list->item(i);
        bool ahead = i >= first;
        if (item->font().italic() == ahead) continue;
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
    showReached(this, s->position);
}

}  // namespace qgpu
