#include "qgpu/ui/RomView.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <map>

#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/ui/DebugController.h"

namespace qgpu {

namespace {

const QColor kDiffers(255, 170, 170);
const QColor kWarpHere(255, 240, 150);

QString hex64(uint64_t w) { return QString("0x%1").arg(w, 16, 16, QChar('0')); }

QString bits64(uint64_t w) {
    QString s;
    for (int b = 63; b >= 0; --b) s += (w >> b & 1) ? '1' : '0';
    return s;
}

QString instructionText(uint64_t word, bool terminator) {
    if (word == 0 && !terminator) return "(empty slot)";
    try {
        return QString::fromStdString(disassemble(decode(word)));
    } catch (const DiagnosticError& e) {
        return "not an instruction: " + QString::fromStdString(e.what());
    }
}

QTableWidgetItem* cell(const QString& text) {
    auto* it = new QTableWidgetItem(text);
    it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return it;
}

}  // namespace

QString romWordFields(uint64_t w) {
    auto field = [w](int lo, int bits) { return int(w >> lo & ((1u << bits) - 1)); };
    QString s = QString("op %1%2 rd %3 rs1 %4 rs2 %5 rc %6 aux %7")
                    .arg(field(0, 6))
                    .arg(field(6, 1) ? " imm" : "")
                    .arg(field(7, 4))
                    .arg(field(11, 4))
                    .arg(field(15, 4))
                    .arg(field(19, 4))
                    .arg(field(23, 2));
    if (int high = field(25, 7)) s += QString(" bits25-31 %1").arg(high);
    return s + QString(" #%1").arg(int32_t(uint32_t(w >> 32)));
}

RomView::RomView(QWidget* parent) : QWidget(parent) {
    m_summary = new QLabel("Build a program to see its ROM.");
    m_summary->setObjectName("romSummary");
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a narrow dock cuts it, not grows
    m_table = new QTableWidget(0, 7);
    m_table->setObjectName("romTable");
    m_table->setHorizontalHeaderLabels({"block", "slot", "held", "instruction", "fields", "compiled", "warps here"});
    m_table->verticalHeader()->hide();
    m_table->setFont(QFont("Monospace", 9));
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip("Hover a word for its 64 bits; rows in red hold another word than the compiler produced.");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addWidget(m_table);
}

void RomView::clear() {
    m_table->setRowCount(0);
    m_firstRow.clear();
    m_differences = 0;
    m_summary->setText("Build a program to see its ROM.");
}

void RomView::setRom(const RomImage& held, const std::vector<std::vector<uint64_t>>& compiled, const QString& backend) {
    clear();
    size_t blocks = std::max(held.words.size(), compiled.size());
    m_slots = 0;
    for (const auto& b : held.words) m_slots = std::max(m_slots, int(b.size()));
    for (const auto& b : compiled) m_slots = std::max(m_slots, int(b.size()));
    m_table->setRowCount(int(blocks) * m_slots);
    int row = 0;
    for (size_t b = 0; b < blocks; ++b) {
        m_firstRow.push_back(row);
        for (int s = 0; s < m_slots; ++s, ++row) {
            bool terminator = s == m_slots - 1;
            bool inHeld = b < held.words.size() && size_t(s) < held.words[b].size();
            bool inCompiled = b < compiled.size() && size_t(s) < compiled[b].size();
            uint64_t h = inHeld ? held.words[b][size_t(s)] : 0, c = inCompiled ? compiled[b][size_t(s)] : 0;
            bool differs = inHeld != inCompiled || h != c;
            m_differences += differs;
            QString extra;
            if (terminator && b < held.terminatorExtra.size() && held.terminatorExtra[b])
                extra = " (+" + hex64(held.terminatorExtra[b]) + " kept beside it)";
            std::array<QTableWidgetItem*, 7> items{
                cell(s == 0 ? QString("b%1").arg(b) : QString()),
                cell(terminator ? QString("term") : QString::number(s)),
                cell(inHeld ? hex64(h) + extra : QString("(not held)")),
                cell(instructionText(h, terminator)),
                cell(romWordFields(h)),
                cell(inCompiled ? (differs ? hex64(c) : QString("same")) : QString("(not compiled)")),
                cell({})};
            items[Held]->setToolTip(bits64(h));
            items[Compiled]->setToolTip(bits64(c));
            for (int col = 0; col < 7; ++col) {
                if (differs) items[size_t(col)]->setBackground(kDiffers);
                m_table->setItem(row, col, items[size_t(col)]);
            }
        }
    }
    m_table->resizeColumnsToContents();  // once: sized on every setItem, a ROM of 128 blocks takes seconds
    m_summary->setText(QString("The ROM as the %1 backend holds it%2: %3 blocks of %4 body slots and a terminator. %5")
                           .arg(backend)
                           .arg(backend == "model" ? " (decoded from its recurrent state)" : "")
                           .arg(blocks)
                           .arg(m_slots - 1)
                           .arg(m_differences == 0 ? QString("Every word is the compiler's.")
                                                   : QString("%1 word%2 differ%3 from the compiler's (red).")
                                                         .arg(m_differences)
                                                         .arg(m_differences == 1 ? "" : "s")
                                                         .arg(m_differences == 1 ? "s" : "")));
    m_summary->setStyleSheet(m_differences ? "color: #b00020" : "");
}

int RomView::rowOf(int block, int slot) const {
    if (block < 0 || block >= int(m_firstRow.size()) || slot < 0 || slot >= m_slots) return -1;
    return m_firstRow[size_t(block)] + slot;
}

void RomView::showWarps(const MachineState& state) {
    std::map<int, QStringList> at;  // block -> "w0: lanes 0 1 2 3"
    for (int w = 0; w < state.warpCount(); ++w) {
        std::map<int, QStringList> lanes;
        for (int l = 0; l < state.lanesPerWarp; ++l) {
            const ThreadState& t = state.threads[size_t(w * state.lanesPerWarp + l)];
            if (t.status == LaneStatus::Live || t.status == LaneStatus::AtBarrier) lanes[t.pc] << QString::number(l);
        }
        for (const auto& [block, list] : lanes) at[block] << QString("w%1: lanes %2").arg(w).arg(list.join(" "));
    }
    for (size_t b = 0; b < m_firstRow.size(); ++b) {
        QTableWidgetItem* item = m_table->item(m_firstRow[b], Warps);
        if (!item) continue;
        auto it = at.find(int(b));
        item->setText(it == at.end() ? QString() : it->second.join("; "));
        if (m_table->item(m_firstRow[b], Block)->background() != QBrush(kDiffers))
            item->setBackground(it == at.end() ? QBrush() : QBrush(kWarpHere));
    }
}

void RomView::follow(DebugController& debugger) {
    connect(&debugger, &DebugController::built, this, [this, &debugger](bool ok) {
        const BuiltProgram& b = debugger.lastBuild();
        if (ok)
            setRom(b.rom, b.compiledRom, debugger.backend());
        else
            clear();
    });
    connect(&debugger, &DebugController::moved, this, [this, &debugger] {
        std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
        if (s->loaded) showWarps(s->state);
    });
}

}  // namespace qgpu
