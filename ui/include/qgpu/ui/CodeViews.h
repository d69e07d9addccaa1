// The PTX and machine-block views beside the source, linked to it through the line map: a source line
// selects its PTX lines and block slots, and clicking a slot asks for its source line.
#pragma once

#include <QListWidget>
#include <QObject>
#include <QPlainTextEdit>

#include "qgpu/compiler/Lowering.h"

namespace qgpu {

class DebugController;

class CodeViews : public QObject {
    Q_OBJECT
public:
    explicit CodeViews(QObject* parent = nullptr);
    // Shows the debugger's every build and move.
    void follow(DebugController& debugger);
    QPlainTextEdit* ptxView() const { return m_ptx; }
    QListWidget* blockView() const { return m_blocks; }

    // `ptx` may be empty (assembly programs); `lineMap` may be empty, then body locations are used.
    void show(const Program& program, const std::string& ptx, const std::vector<LineMapEntry>& lineMap);
    void clear();
    // Highlights what the source line became; returns the number of block slots selected.
    int selectSourceLine(int line);
    void markCurrentBlock(int block);  // the block the debugger runs next (-1: none)

signals:
    void sourceLineRequested(int line);

private:
    QPlainTextEdit* m_ptx;
    QListWidget* m_blocks;
    std::vector<LineMapEntry> m_lineMap;
};

}  // namespace qgpu
