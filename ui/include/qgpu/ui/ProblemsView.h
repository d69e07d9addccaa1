// The Problems panel, as compute-sanitizer reports them: every warning of the steps run so far (an address
// outside memory, a shuffle from an inactive lane, a division by zero, a full call stack) and a fault, each with
// its step, thread and source line. A click goes to that step and shows the line in the editor.
#pragma once

#include "qgpu/ui/StepRowsView.h"

namespace qgpu {

class ProblemsView : public StepRowsView {
    Q_OBJECT
public:
    explicit ProblemsView(DebugController& debugger, QWidget* parent = nullptr);

private:
    void showMoment(const DebugSnapshot& s) override;
};

}  // namespace qgpu
