#include "qgpu/ui/TokenText.h"

#include <QRegularExpression>

namespace qgpu {

std::optional<TokenFields> tokenFields(const QString& token) {
    static const QRegularExpression form(R"(^([A-Z]+)(?:\((.*)\))?$)");
    QRegularExpressionMatch m = form.match(token);
    if (!m.hasMatch()) return std::nullopt;
    TokenFields t;
    t.kind = m.captured(1);
    QString inside = m.captured(2);
    t.last = inside.endsWith('.');
    if (t.last) inside.chop(1);
    if (int brace = inside.indexOf('{'); brace >= 0) {  // a lane set holds commas of its own
        t.lanes = inside.mid(brace);
        inside = inside.left(brace);
    }
    t.fields = inside.split(',', Qt::SkipEmptyParts);
    static const QRegularExpression letter("^[a-z]+(?=\\d)");
    for (QString& field : t.fields) field.remove(letter);
    return t;
}

std::vector<ValueRecord> valueRecords(const TokenStream& tokens, int step) {
    std::vector<ValueRecord> out;
    if (step < 0 || size_t(step) >= tokens.writtenAfterStep.size()) return out;
    size_t begin = step > 0 ? tokens.writtenAfterStep[size_t(step - 1)] : 0;
    size_t end = std::min(tokens.writtenAfterStep[size_t(step)], tokens.written.size());
    uint32_t word = 0;
    for (size_t i = begin; i < end; ++i) {
        std::optional<TokenFields> t = tokenFields(QString::fromStdString(tokens.written[i]));
        if (!t || t->kind != "VAL" || t->fields.size() != 4) continue;
        int byte = t->fields[2].toInt();
        uint32_t v = t->fields[3].toUInt(nullptr, 16) & 0xff;
        if (byte == 0) word = 0;
        word |= v << (8 * byte);
        if (!t->last) continue;
        if (byte < 3 && (v & 0x80)) word |= ~0u << (8 * byte + 8);  // the last byte's sign fills the rest
        out.push_back({t->fields[0].toInt(), t->fields[1].toInt(), word, i});
    }
    return out;
}

}  // namespace qgpu
