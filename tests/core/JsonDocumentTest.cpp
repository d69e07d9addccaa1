// JsonDocument: every JSON input the project reads goes through parseJsonDocument and jsonGet.
#include <gtest/gtest.h>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/JsonDocument.h"

using namespace qgpu;

namespace {

// The diagnostic parsing `text` gives, as "LINE:COLUMN: message".
std::string errorOf(const std::string& text) {
    try {
        parseJsonDocument(text, "in.json");
    } catch (const DiagnosticError& e) {
        const Diagnostic& d = e.diagnostics().front();
        EXPECT_EQ(d.file, "in.json");
        return std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message;
    }
    return "no error";
}

}  // namespace

TEST(JsonDocument, ParsesWhatNlohmannParses) {
    auto j = parseJsonDocument(R"({"a": [1, 2.5, "x", {"b": null}], "c": true})", "in.json");
    EXPECT_EQ(j["a"][1].get<double>(), 2.5);
    EXPECT_TRUE(j["a"][3]["b"].is_null());
    auto ordered = parseJsonDocument<nlohmann::ordered_json>(R"({"z": 1, "a": 2})", "in.json");
    EXPECT_EQ(ordered.begin().key(), "z");
}

TEST(JsonDocument, MalformedJsonNamesTheLineAndColumn) {
    EXPECT_EQ(errorOf("{\n  \"a\": 1,\n  \"b\" 2\n}").rfind("3:7: malformed JSON: syntax error", 0), 0u)
        << errorOf("{\n  \"a\": 1,\n  \"b\" 2\n}");
    EXPECT_EQ(errorOf("").rfind("1:1: malformed JSON", 0), 0u) << errorOf("");
}

TEST(JsonDocument, ANumberOutOfRangeIsLocatedNotAnInternalError) {
    EXPECT_EQ(errorOf("{\"grid\": 1,\n \"block\": 1e400}"),
              "2:11: the number 1e400 is out of range (JSON numbers here must fit a double)");
}

TEST(JsonDocument, AKeyGivenTwiceIsRefusedWithItsObject) {
    EXPECT_EQ(errorOf(R"({"block": 4, "block": 8})"),
              "0:0: the key \"block\" is given twice in the document; give each key once");
    EXPECT_EQ(errorOf(R"({"model": {"vocab": {"a": 0, "a": 1}}})"),
              "0:0: the key \"a\" is given twice in \"model.vocab\"; give each key once");
    EXPECT_EQ(errorOf(R"({"args": [{"name": "x"}, {"name": "y", "name": "z"}]})"),
              "0:0: the key \"name\" is given twice in \"args[1]\"; give each key once");
    EXPECT_EQ(errorOf(R"([{"a": 1}, {"a": 2}])"), "no error");  // the same key in two objects
}

TEST(JsonDocument, NestingIsBounded) {
    std::string deep(100000, '[');
    EXPECT_NE(errorOf(deep).find("nested too deeply (limit 64 levels"), std::string::npos);
    std::string ok = std::string(64, '[') + std::string(64, ']');
    EXPECT_EQ(errorOf(ok), "no error");
    EXPECT_NE(errorOf(std::string(65, '[') + std::string(65, ']')).find("nested too deeply"), std::string::npos);
}

TEST(JsonDocument, TypedReadsNameThePathAndTheExpectedType) {
    auto j = parseJsonDocument(R"({"n": 3000000000, "f": "x", "big": 1e300, "neg": -1, "b": 1})", "c.json");
    auto err = [&](auto read) {
        try {
            read();
        } catch (const DiagnosticError& e) {
            return e.diagnostics().front().format();
        }
        return std::string("no error");
    };
    EXPECT_EQ(err([&] { jsonGet<int>(j["n"], "n", "c.json"); }),
              "c.json: error: \"n\" must be an integer from -2147483648 to 2147483647, not 3000000000");
    EXPECT_EQ(jsonGet<int64_t>(j["n"], "n", "c.json"), 3000000000);
    EXPECT_EQ(err([&] { jsonGet<float>(j["f"], "f", "c.json"); }),
              "c.json: error: \"f\" must be a finite number, not \"x\"");
    EXPECT_EQ(err([&] { jsonGet<float>(j["big"], "big", "c.json"); }),
              "c.json: error: \"big\" must be a finite number, not 1e+300");
    EXPECT_EQ(jsonGet<double>(j["big"], "big", "c.json"), 1e300);
    EXPECT_NE(err([&] { jsonGet<uint64_t>(j["neg"], "neg", "c.json"); }).find("\"neg\" must be an integer from 0 "),
              std::string::npos);
    EXPECT_EQ(err([&] { jsonGet<bool>(j["b"], "b", "c.json"); }), "c.json: error: \"b\" must be true or false, not 1");
}
