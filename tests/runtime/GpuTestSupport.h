// Shared by the GPU-in-the-model tests (sparse in the default run, dense under `slow`): the model must
// write the reference interpreter's stream token for token, end with its registers, and predict every
// record of a teacher-forced stream.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu::testing {

inline std::string text(const std::vector<gpu::Token>& tokens, size_t from, size_t count) {
    std::string s;
    for (size_t i = from; i < tokens.size() && i < from + count; ++i) s += tokens[i].text() + " ";
    return s;
}

inline void expectExact(const GpuModel& model, Engine engine, const std::string& source, int lanes) {
    Program program = assemble(source, "test.qasm");
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, lanes);
    GpuLaunch run = model.run(program, lanes, int(ref.stream.size()) + 8, engine);
    size_t mismatch = 0;
    while (mismatch < ref.stream.size() && mismatch < run.written.size() &&
           run.written[mismatch] == ref.stream[mismatch])
        ++mismatch;
    ASSERT_EQ(mismatch, ref.stream.size())
        << "first mismatch at record " << mismatch << "\n  model:     " << text(run.written, mismatch, 6)
        << "\n  reference: " << text(ref.stream, mismatch, 6);
    EXPECT_TRUE(run.ended);
    for (int lane = 0; lane < lanes; ++lane)
        for (int r = 0; r < 16; ++r)
            EXPECT_EQ(run.registers[size_t(lane)][size_t(r)], ref.registers[size_t(lane)][size_t(r)])
                << "lane " << lane << " r" << r;

    // Teacher forcing: the whole stream in one prefill (the chunked delta rule), argmax at every position
    // the model writes.
    std::vector<gpu::Token> stream = run.fed;
    stream.insert(stream.end(), ref.stream.begin(), ref.stream.end());
    std::vector<int> predicted = model.teacherForced(stream, engine);
    for (size_t t = run.fed.size() - 1; t + 1 < stream.size(); ++t)
        ASSERT_EQ(gpu::Token::fromId(predicted[t]).text(), stream[t + 1].text()) << "teacher-forced position " << t;
}

// Straight-line programs of step (a): every ALU opcode, sreg, blocks joined by jmp.
inline const char* kArithmeticBlock = R"(
    sreg r1, tid.x
    add r2, r1, 5
    mul r3, r2, r2
    sub r4, r3, r1
    exit
)";

inline const char* kEveryAluOpcode = R"(
b0:
    sreg r1, tid.x
    mov r2, 0x89abcdef
    add r3, r2, r1
    mul r4, r3, r3
    jmp b1
b1:
    shl r5, r2, r1
    shr r6, r2, 7
    sra r7, r2, r1
    and r8, r2, r4
    jmp b2
b2:
    or r9, r2, 0x0ff0
    xor r10, r2, r4
    not r11, r3
    min r12, r2, r1
    jmp b3
b3:
    max r12, r12, r5
    minu r13, r2, r1
    maxu r14, r2, r4
    seteq r15, r1, 2
    jmp b4
b4:
    setlt r15, r2, r1
    setgeu r14, r2, r1
    sel r13, r3, r4, r15
    sreg r9, laneid
    jmp b5
b5:
    sreg r10, ntid.x
    setne r11, r1, 0
    add r0, r1, r1
    exit
)";

}  // namespace qgpu::testing
