// The Token stream panel: the tokens the host fed (the program and the launch, grey) and those the model wrote,
// numbered in one sequence, each with its meaning in a tooltip; the tokens ahead of the debugger in grey
// italics. A click moves the debugger to the moment the model wrote that token (a fed one: the start).
#pragma once

#include <QListWidget>

namespace qgpu {

class DebugController;

class TokenStreamView : public QListWidget {
    Q_OBJECT
public:
    explicit TokenStreamView(DebugController& debugger, QWidget* parent = nullptr);

private:
    void showMoment();
    void moveToRow(int row);
    DebugController& m_debugger;
    int m_fed = 0;  // the rows before the first written token
};

// What a token of the machine's alphabet says, in words (docs/tokens.md): "VAL(s1,l2,k0,0x12.)" is "byte 0 of
// the value slot 1 writes in lane 2 is 0x12 (18), its last byte". "" for a text that is no such token.
QString tokenMeaning(const QString& token);

}  // namespace qgpu
