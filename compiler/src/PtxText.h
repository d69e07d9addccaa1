// The lexical pieces of PTX text that its readers share (PtxText.cpp): the PTX parser and the reader of the
// debug sections. Private to the compiler library.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace qgpu::ptx {

std::string trim(const std::string& s);  // without spaces, tabs and '\r' at either end
bool startsWith(const std::string& s, const std::string& p);
// `name` as a whole word at the start (so ".loc" does not match ".local").
bool directive(const std::string& s, const std::string& name);
bool isOpen(char c);   // [ ( {
bool isClose(char c);  // ] ) }
// `s` split at `sep` outside brackets, parentheses and braces, each piece trimmed (an empty last one dropped).
std::vector<std::string> split(const std::string& s, char sep);
bool isNameChar(char c);
// A PTX identifier: a letter followed by letters, digits, '_' and '$', or '_', '$' or '%' followed by at
// least one of those.
bool isIdentifier(const std::string& s);
// An instruction name as PTX writes it: words joined by single dots, the first lower-case ("min.NaN.f32").
bool isOpcode(const std::string& s);
// The names of PTX's instructions (the first part of an opcode).
bool isInstructionName(const std::string& name);
// Where an operand has a space outside brackets (two operands, or an operand and the next statement, run
// together), or npos.
size_t spaceInOperand(const std::string& t);

}  // namespace qgpu::ptx
