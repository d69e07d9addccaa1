#include <gtest/gtest.h>

#include "TextTestUtil.h"
#include "qgpu/runtime/text/ChatTemplate.h"

using namespace qgpu::text;
using namespace qgpu::text::testing;
using Json = nlohmann::ordered_json;

namespace {

const Json kTools = Json::parse(R"([
    {"type": "function", "function": {"name": "add", "parameters": {"type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "number"}}}}},
    {"type": "function", "function": {"name": "write", "parameters": {"type": "object",
        "properties": {"path": {"type": "string"}, "append": {"type": "boolean"}, "lines": {"type": "array"},
                       "meta": {"type": "object"}}}}}])");

}  // namespace

TEST(ToolCalls, ParsesQwen35XmlCallsWithDeclaredTypes) {
    std::string text =
        "Let me add.\n\n<tool_call>\n<function=add>\n<parameter=a>\n2\n</parameter>\n<parameter=b>\n1.5\n"
        "</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=write>\n<parameter=path>\n 007.txt \n"
        "</parameter>\n<parameter=append>\nTrue\n</parameter>\n<parameter=lines>\n[\"a\", 1]\n</parameter>\n"
        "<parameter=note>\nline one\nline two\n</parameter>\n</function>\n</tool_call>";
    std::vector<ToolCall> calls = parseToolCalls(text, kTools);
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].name, "add");
    EXPECT_EQ(calls[0].arguments, Json::parse(R"({"a": 2, "b": 1.5})"));
    EXPECT_EQ(calls[1].name, "write");
    EXPECT_EQ(calls[1].arguments,
              Json::parse(R"({"path": " 007.txt ", "append": true, "lines": ["a", 1], "note": "line one\nline two"})"));
    // Without schemas every value stays text.
    EXPECT_EQ(parseToolCalls(text)[0].arguments, Json::parse(R"({"a": "2", "b": "1.5"})"));
}

TEST(ToolCalls, ParsesQwen3JsonCalls) {
    std::vector<ToolCall> calls = parseToolCalls(
        "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}\n</tool_call>"
        "<tool_call>{\"name\": \"ping\"}</tool_call>"
        "<tool_call>{\"name\": \"add\", \"arguments\": \"{\\\"a\\\": 3}\"}</tool_call>");
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(calls[0].name, "add");
    EXPECT_EQ(calls[0].arguments, Json::parse(R"({"a": 1, "b": 2})"));
    EXPECT_EQ(calls[1].name, "ping");
    EXPECT_EQ(calls[1].arguments, Json::object());
    EXPECT_EQ(calls[2].arguments, Json::parse(R"({"a": 3})"));
    EXPECT_TRUE(parseToolCalls("no calls here").empty());
}

TEST(ToolCalls, RoundTripsWhatTheTemplateWrites) {
    ToolCall call{"write",
                  Json::parse(R"({"path": "a b.txt", "append": false, "lines": ["x", 2], "meta": {"k": null}})")};
    // No tools in the prompt: its system turn shows an example call, and this parses the conversation.
    std::string rendered =
        renderChat({{"user", "go", "", {}}, {"assistant", "ok", "", {call}}}, Json::array(), {false});
    std::vector<ToolCall> back = parseToolCalls(rendered, kTools);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].name, call.name);
    EXPECT_EQ(back[0].arguments, call.arguments);
}

TEST(ToolCalls, ReportsMalformedCalls) {
    std::string err =
        errorOf([] { parseToolCalls("x\n<tool_call>{\"name\": \"add\", \"arguments\": {\"a\": 2,}}</tool_call>"); });
    EXPECT_NE(err.find("model output:2:12: error: malformed JSON in <tool_call>"), std::string::npos) << err;
    err = errorOf([] { parseToolCalls("<tool_call>\n<function=add>\n<parameter=a>\n2\n</parameter>\n"); });
    EXPECT_NE(err.find("model output:1:1: error: <tool_call> is not closed"), std::string::npos) << err;
    err = errorOf([] { parseToolCalls("<tool_call><function=add><parameter=a>2</tool_call>"); });
    EXPECT_NE(err.find("<parameter=a> is not closed by </parameter>"), std::string::npos) << err;
    err = errorOf([] { parseToolCalls("<tool_call><function=add></tool_call>"); });
    EXPECT_NE(err.find("expected <parameter=KEY> or </function>"), std::string::npos) << err;
    err = errorOf([] { parseToolCalls("<tool_call>{\"arguments\": {}}</tool_call>"); });
    EXPECT_NE(err.find("needs a \"name\" string"), std::string::npos) << err;
    err = errorOf([] { parseToolCalls("<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>"); });
    EXPECT_NE(err.find("are not a JSON object"), std::string::npos) << err;
    err = errorOf([] { parseToolCalls("<tool_call>add(1, 2)</tool_call>"); });
    EXPECT_NE(err.find("expected <function=NAME> or a JSON object"), std::string::npos) << err;
    err = errorOf(
        [] { parseToolCalls("<tool_call><function=add><parameter=a>two</parameter></function></tool_call>", kTools); });
    EXPECT_NE(err.find("parameter a of add should be integer but is \"two\""), std::string::npos) << err;
}
