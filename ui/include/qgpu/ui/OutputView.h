// The Output panel: what the kernel's printf calls have printed by the current step, in the order they ran,
// each with the step that wrote its record, its thread and its source line; a failed device assert's message
// is marked. A click goes to that step and shows the line in the editor.
#pragma once

#include "qgpu/ui/StepRowsView.h"

namespace qgpu {

class OutputView : public StepRowsView {
    Q_OBJECT
public:
    explicit OutputView(DebugController& debugger, QWidget* parent = nullptr);

private:
    void showMoment(const DebugSnapshot& s) override;
};

}  // namespace qgpu
