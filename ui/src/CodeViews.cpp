#include "qgpu/ui/CodeViews.h"

#include <QTextBlock>

#include "qgpu/core/Assembler.h"
#include "qgpu/ui/DebugController.h"

namespace qgpu {

namespace {
constexpr int kBlockRole = Qt::UserRole;
constexpr int kSlotRole = Qt::UserRole + 1;
constexpr int kLineRole = Qt::UserRole + 2;
}  // namespace

CodeViews::CodeViews(QObject* parent) : QObject(parent) {
    m_ptx = new QPlainTextEdit;
    m_ptx->setObjectName("ptxView");
    m_ptx->setReadOnly(true);
    m_ptx->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_ptx->setFont(QFont("Monospace", 9));
    m_blocks = new QListWidget;
    m_blocks->setObjectName("blockView");
    m_blocks->setFont(QFont("Monospace", 9));
    m_blocks->setSelectionMode(QAbstractItemView::ExtendedSelection);
    connect(m_blocks, &QListWidget::itemClicked, this, [this](QListWidgetItem* it) {
        int line = it->data(kLineRole).toInt();
        if (line > 0) emit sourceLineRequested(line);
    });
}

void CodeViews::clear() {
    m_ptx->clear();
    m_blocks->clear();
    m_lineMap.clear();
}

void CodeViews::show(const Program& program, const std::string& ptx, const std::vector<LineMapEntry>& lineMap) {
    clear();
    m_ptx->setPlainText(QString::fromStdString(ptx));
    m_lineMap = lineMap;
    if (m_lineMap.empty())  // assembly: the locations are the program's own lines
        for (size_t b = 0; b < program.blocks.size(); ++b) {
            const Block& blk = program.blocks[b];
            for (size_t i = 0; i < blk.body.size(); ++i)
                m_lineMap.push_back({int(b), int(i), i < blk.bodyLocs.size() ? blk.bodyLocs[i].line : 0, 0});
            m_lineMap.push_back({int(b), int(blk.body.size()), blk.terminatorLoc.line, 0});
        }
    auto lineOf = [&](int block, int slot) {
        for (const auto& e : m_lineMap)
            if (e.block == block && e.slot == slot) return e.cudaLine;
        return 0;
    };
    for (size_t b = 0; b < program.blocks.size(); ++b) {
        const Block& blk = program.blocks[b];
        auto* header = new QListWidgetItem(QString::fromStdString(blk.label + ":"));
        header->setData(kBlockRole, int(b));
        header->setData(kSlotRole, -1);
        header->setData(kLineRole, lineOf(int(b), 0));
        m_blocks->addItem(header);
        for (size_t i = 0; i <= blk.body.size(); ++i) {
            const Instruction& in = i < blk.body.size() ? blk.body[i] : blk.terminator;
            int line = lineOf(int(b), int(i));
            QString text = QString::fromStdString("    " + disassemble(in, &program));
            auto* item = new QListWidgetItem(line > 0 ? text.leftJustified(36) + QString("; line %1").arg(line) : text);
            item->setData(kBlockRole, int(b));
            item->setData(kSlotRole, int(i));
            item->setData(kLineRole, line);
            m_blocks->addItem(item);
        }
    }
}

int CodeViews::selectSourceLine(int line) {
    QList<QTextEdit::ExtraSelection> marks;
    int selected = 0, firstPtx = 0;
    for (const auto& e : m_lineMap) {
        if (e.cudaLine != line || e.ptxLine <= 0) continue;
        QTextEdit::ExtraSelection sel;
        sel.format.setBackground(QColor(200, 225, 255));
        sel.format.setProperty(QTextFormat::FullWidthSelection, true);
        sel.cursor = QTextCursor(m_ptx->document()->findBlockByNumber(e.ptxLine - 1));
        marks.append(sel);
        if (!firstPtx || e.ptxLine < firstPtx) firstPtx = e.ptxLine;
    }
    m_ptx->setExtraSelections(marks);
    if (firstPtx) {
        m_ptx->setTextCursor(QTextCursor(m_ptx->document()->findBlockByNumber(firstPtx - 1)));
        m_ptx->centerCursor();
    }
    m_blocks->clearSelection();
    for (int row = 0; row < m_blocks->count(); ++row) {
        QListWidgetItem* it = m_blocks->item(row);
        if (it->data(kSlotRole).toInt() >= 0 && it->data(kLineRole).toInt() == line) {
            it->setSelected(true);
            if (!selected++) m_blocks->scrollToItem(it);
        }
    }
    return selected;
}

void CodeViews::markCurrentBlock(int block) {
    for (int row = 0; row < m_blocks->count(); ++row) {
        QListWidgetItem* it = m_blocks->item(row);
        bool current = it->data(kBlockRole).toInt() == block;
        it->setBackground(current ? QColor(255, 240, 150) : QColor(Qt::transparent));
    }
}

void CodeViews::follow(DebugController& debugger) {
    connect(&debugger, &DebugController::built, this, [this, &debugger] {
        const BuiltProgram& b = debugger.lastBuild();
        show(b.program, b.ptx, b.lineMap);  // a failed build: the PTX its message may cite
    });
    connect(&debugger, &DebugController::moved, this, [this, &debugger] {
        std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
        markCurrentBlock(s->loaded && s->next.warp >= 0 ? s->next.block : -1);
    });
}

}  // namespace qgpu
