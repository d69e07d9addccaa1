// The Token stream panel: the tokens the host fed (the program and the launch, grey) and those the model wrote,
// numbered in one sequence, each with its meaning in a tooltip; the tokens ahead of the debugger in grey
// italics. A click, or the keys that move the highlight, move the debugger to the moment the model wrote that
// token (a fed one: the start).
#pragma once

#include <QListWidget>

#include "qgpu/ui/StepListView.h"

namespace qgpu {

class DebugController;

class TokenStreamView : public QListWidget {
    Q_OBJECT
public:
    explicit TokenStreamView(DebugController& debugger, QWidget* parent = nullptr);
    // Selects the next row after the current one whose text or meaning holds `text` (any case), from the top
    // again after the last; its row, or -1 when none does. Ctrl+F asks for the text, F3 finds the next.
    int findNext(const QString& text);

protected:
    // The arrow and page keys go to the token they reach, as a click does, so that the highlighted token and
    // the machine shown never disagree.
    void keyPressEvent(QKeyEvent* event) override;

private:
    void showMoment();
    void moveToRow(int row);
    DebugController& m_debugger;
    ReachedRows m_reached;
    int m_fed = 0;   // the rows before the first written token
    QString m_find;  // what Ctrl+F last looked for
};

// What a token of the machine's alphabet says, in words (docs/tokens.md): "VAL(s1,l2,k0,0x12.)" is "byte 0 of
// the value slot 1 writes in lane 2 is 0x12 (18), its last byte". "" for a text that is no such token.
QString tokenMeaning(const QString& token);

}  // namespace qgpu
