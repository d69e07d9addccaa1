// The machine's tokens as text (docs/tokens.md), taken apart: what the token stream's tooltips and the History
// panel's token column read.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <vector>

#include "qgpu/core/Session.h"

namespace qgpu {

// "VAL(s1,l2,k0,0x12.)" is VAL with fields 1, 2, 0, 0x12 and its last byte.
struct TokenFields {
    QString kind;
    QStringList fields;  // each without its letter ("s3" is 3)
    QString lanes;       // a lane set, "{0,2}", where the token has one
    bool last = false;   // the dot: a word's last byte
};
std::optional<TokenFields> tokenFields(const QString& token);

// A value the model wrote in a step's VAL records: the body slot that produced it, the lane, the word, and the
// written token that ends it (its last byte; an index into TokenStream::written).
struct ValueRecord {
    int slot = 0, lane = 0;
    uint32_t value = 0;
    size_t token = 0;
};
// The values of step `step` (0-based) in the order the model wrote them; none for a step not written yet.
std::vector<ValueRecord> valueRecords(const TokenStream& tokens, int step);

}  // namespace qgpu
