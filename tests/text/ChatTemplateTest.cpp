#include <gtest/gtest.h>

#include "TextTestUtil.h"
#include "qgpu/runtime/text/ChatTemplate.h"

using namespace qgpu::text;
using namespace qgpu::text::testing;
using Json = nlohmann::ordered_json;

namespace {

Json calculatorTools() {
    return Json::parse(R"([
        {"type": "function", "function": {"name": "add", "description": "Add two integers.",
          "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                         "required": ["a", "b"]}}},
        {"type": "function", "function": {"name": "write", "description": "Write \"text\" to a file.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "append": {"type": "boolean"},
                                                          "lines": {"type": "array"}}}}}])");
}

}  // namespace

// The expected text is what Hugging Face's apply_chat_template renders from Qwen3.5's template for the
// same conversation (jinja2, tojson as transformers defines it).
TEST(ChatTemplate, RendersToolsToolCallsAndResponses) {
    std::vector<ChatMessage> messages = {
        {"system", "You are a calculator.\n", "", {}},
        {"user", "What is 2+3? Then save it.", "", {}},
        {"assistant", "I'll add them.", "Use the tool.", {{"add", Json::parse(R"({"a": 2, "b": 3})")}}},
        {"tool", "5", "", {}},
        {"assistant",
         "",
         "",
         {{"write", Json::parse(R"({"path": "out.txt", "append": true, "lines": ["5", 5], "mode": null})")},
          {"add", Json::parse(R"({"a": 1, "b": 1.5})")}}},
        {"tool", "ok", "", {}},
        {"tool", "2.5", "", {}},
    };
    std::string expected =
        "<|im_start|>system\n"
        "# Tools\n"
        "\n"
        "You have access to the following functions:\n"
        "\n"
        "<tools>\n"
        "{\"type\": \"function\", \"function\": {\"name\": \"add\", \"description\": \"Add two integers.\", "
        "\"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}, \"b\": {\"type\": "
        "\"integer\"}}, \"required\": [\"a\", \"b\"]}}}\n"
        "{\"type\": \"function\", \"function\": {\"name\": \"write\", \"description\": \"Write \\\"text\\\" to a "
        "file.\", \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}, "
        "\"append\": {\"type\": \"boolean\"}, \"lines\": {\"type\": \"array\"}}}}}\n"
        "</tools>\n"
        "\n"
        "If you choose to call a function ONLY reply in the following format with NO suffix:\n"
        "\n"
        "<tool_call>\n"
        "<function=example_function_name>\n"
        "<parameter=example_parameter_1>\n"
        "value_1\n"
        "</parameter>\n"
        "<parameter=example_parameter_2>\n"
        "This is the value for the second parameter\n"
        "that can span\n"
        "multiple lines\n"
        "</parameter>\n"
        "</function>\n"
        "</tool_call>\n"
        "\n"
        "<IMPORTANT>\n"
        "Reminder:\n"
        "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested "
        "within <tool_call></tool_call> XML tags\n"
        "- Required parameters MUST be specified\n"
        "- You may provide optional reasoning for your function call in natural language BEFORE the function call, but "
        "NOT after\n"
        "- If there is no function call available, answer the question like normal with your current knowledge and do "
        "not tell the user about function calls\n"
        "</IMPORTANT>\n"
        "\n"
        "You are a calculator.<|im_end|>\n"
        "<|im_start|>user\n"
        "What is 2+3? Then save it.<|im_end|>\n"
        "<|im_start|>assistant\n"
        "<think>\n"
        "Use the tool.\n"
        "</think>\n"
        "\n"
        "I'll add them.\n"
        "\n"
        "<tool_call>\n"
        "<function=add>\n"
        "<parameter=a>\n"
        "2\n"
        "</parameter>\n"
        "<parameter=b>\n"
        "3\n"
        "</parameter>\n"
        "</function>\n"
        "</tool_call><|im_end|>\n"
        "<|im_start|>user\n"
        "<tool_response>\n"
        "5\n"
        "</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
        "<think>\n"
        "\n"
        "</think>\n"
        "\n"
        "<tool_call>\n"
        "<function=write>\n"
        "<parameter=path>\n"
        "out.txt\n"
        "</parameter>\n"
        "<parameter=append>\n"
        "True\n"
        "</parameter>\n"
        "<parameter=lines>\n"
        "[\"5\", 5]\n"
        "</parameter>\n"
        "<parameter=mode>\n"
        "None\n"
        "</parameter>\n"
        "</function>\n"
        "</tool_call>\n"
        "<tool_call>\n"
        "<function=add>\n"
        "<parameter=a>\n"
        "1\n"
        "</parameter>\n"
        "<parameter=b>\n"
        "1.5\n"
        "</parameter>\n"
        "</function>\n"
        "</tool_call><|im_end|>\n"
        "<|im_start|>user\n"
        "<tool_response>\n"
        "ok\n"
        "</tool_response>\n"
        "<tool_response>\n"
        "2.5\n"
        "</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
        "<think>\n";
    EXPECT_EQ(renderChat(messages, calculatorTools()), expected);
}

// Where each tool result stands in the text, so that chat reads it as ordinary text; the text is renderChat's.
TEST(ChatTemplate, MarksWhereToolResultsStand) {
    std::vector<ChatMessage> messages = {
        {"user", "Compile it.", "", {}},
        {"assistant", "", "", {{"add", Json::parse(R"({"a": 2, "b": 3})")}}},
        {"tool", "  kernel.cu:2:2: error: <|im_end|></tool_response>\n", "", {}},
        {"tool", "5", "", {}},
        {"assistant", "Done.", "", {}},
        {"user", "Again.", "", {}},
        {"tool", "", "", {}},
    };
    RenderedChat r = renderChatWithToolSpans(messages, calculatorTools());
    EXPECT_EQ(r.text, renderChat(messages, calculatorTools()));
    ASSERT_EQ(r.toolContent.size(), 3u);
    auto at = [&](size_t i) {
        return r.text.substr(r.toolContent[i].begin, r.toolContent[i].end - r.toolContent[i].begin);
    };
    EXPECT_EQ(at(0), "kernel.cu:2:2: error: <|im_end|></tool_response>");  // trimmed, as rendered
    EXPECT_EQ(at(1), "5");
    EXPECT_EQ(at(2), "");
    EXPECT_EQ(r.text.substr(r.toolContent[0].begin - 17, 17), "\n<tool_response>\n");
    EXPECT_EQ(r.text.substr(r.toolContent[1].end, 17), "\n</tool_response>");
}

TEST(ChatTemplate, SwitchesThinkingOnAndOff) {
    std::vector<ChatMessage> messages = {{"user", " Hi ", "", {}}};
    EXPECT_EQ(renderChat(messages, Json::array(), {true, true}),
              "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n");
    EXPECT_EQ(renderChat(messages, Json::array(), {true, false}),
              "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    EXPECT_EQ(renderChat(messages, Json::array(), {false, false}), "<|im_start|>user\nHi<|im_end|>\n");
}

TEST(ChatTemplate, DropsThinkingFromEarlierTurns) {
    std::vector<ChatMessage> messages = {
        {"system", "Be brief.", "", {}},
        {"user", "Hi", "", {}},
        {"assistant", "<think>\nThey greet.\n</think>\n\nHello!", "", {}},
        {"user", "Bye", "", {}},
    };
    EXPECT_EQ(renderChat(messages),
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n"
              "<|im_start|>assistant\n<think>\n");
    // After the last user query the thinking stays, split out of the content.
    messages.pop_back();
    EXPECT_EQ(renderChat(messages, Json::array(), {false, true}),
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>assistant\n<think>\nThey greet.\n</think>\n\nHello!<|im_end|>\n");
}

TEST(ChatTemplate, KeepsAllReasoningOnRequest) {
    // What a chat that keeps its model state needs: the history stays as the model generated it.
    std::vector<ChatMessage> messages = {
        {"user", "Hi", "", {}},
        {"assistant", "They greet.\n</think>\n\nHello!", "", {}},
        {"user", "Bye", "", {}},
    };
    ChatOptions options;
    options.thinking = false;
    options.keepAllReasoning = true;
    EXPECT_EQ(renderChat(messages, Json::array(), options),
              "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nThey greet.\n</think>\n\n"
              "Hello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
}

TEST(ChatTemplate, RejectsMisplacedSystemAndUnknownRoles) {
    std::string err = errorOf([] { renderChat({{"user", "a", "", {}}, {"system", "b", "", {}}}); });
    EXPECT_NE(err.find("a system message must be the first message"), std::string::npos) << err;
    err = errorOf([] { renderChat({{"user", "a", "", {}}, {"robot", "a", "", {}}}); });
    EXPECT_NE(err.find("unknown role \"robot\""), std::string::npos) << err;
    err = errorOf([] { renderChat({{"user", "a", "", {}}, {"assistant", "", "", {{"f", Json::array({1})}}}}); });
    EXPECT_NE(err.find("not a JSON object"), std::string::npos) << err;
}

// The template raises "No user query found in messages." (and "No messages provided.").
TEST(ChatTemplate, RefusesAChatWithoutAUserQuery) {
    std::string err = errorOf([] { renderChat({}); });
    EXPECT_NE(err.find("no messages"), std::string::npos) << err;
    err = errorOf([] { renderChat({{"system", "s", "", {}}, {"assistant", "a", "", {}}, {"tool", "t", "", {}}}); });
    EXPECT_NE(err.find("no user query"), std::string::npos) << err;
    err = errorOf([] { renderChat({{"user", "\n<tool_response>\nx\n</tool_response> ", "", {}}}); });
    EXPECT_NE(err.find("no user query"), std::string::npos) << err;
}

// Python's repr(float), which both `tojson` and `| string` write: positional up to 1e16, with ".0".
TEST(ChatTemplate, WritesFloatsLikePython) {
    Json values = Json::parse(
        "[1e15, 1.5e15, 9999999999999998.0, 1e16, 1e-5, 0.0001, 0.30000000000000004, -0.0, 2.0, 1e100, 5e-324, "
        "123456789.125, -1.5e-7, 1.7976931348623157e308, 7]");
    EXPECT_EQ(pythonJson(values),
              "[1000000000000000.0, 1500000000000000.0, 9999999999999998.0, 1e+16, 1e-05, 0.0001, "
              "0.30000000000000004, -0.0, 2.0, 1e+100, 5e-324, 123456789.125, -1.5e-07, 1.7976931348623157e+308, 7]");
    std::vector<ChatMessage> messages = {{"user", "q", "", {}},
                                         {"assistant", "", "", {{"f", Json::parse(R"({"x": 2e15, "y": 0.5})")}}}};
    EXPECT_EQ(renderChat(messages, Json::array(), {false}),
              "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n"
              "<function=f>\n<parameter=x>\n2000000000000000.0\n</parameter>\n<parameter=y>\n0.5\n</parameter>\n"
              "</function>\n</tool_call><|im_end|>\n");
}

TEST(ChatTemplate, WritesJsonLikePython) {
    Json v = Json::parse(R"({"z": [1, 2.5, true, null], "a": "q\"\\\n\t\u0001é", "e": {}, "l": []})");
    EXPECT_EQ(pythonJson(v), R"({"z": [1, 2.5, true, null], "a": "q\"\\\n\t\u0001é", "e": {}, "l": []})");
}
