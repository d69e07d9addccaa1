"""Our chat template (qgpu_text's renderChat, through qgpu_conformance_text) against Qwen3.5's Jinja
template as transformers renders it (render_jinja_template: what apply_chat_template(..., tokenize=False)
runs), over conversations with tools, tool calls, thinking, reasoning and the template's errors. Each
conversation must render byte for byte the same, or fail on both sides."""
import argparse
import difflib
import json
import pathlib
import subprocess
import sys
import time

import jinja2
import transformers
from transformers.utils.chat_template_utils import render_jinja_template

transformers.logging.set_verbosity_error()

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather for a city. Says \"sunny\" a lot.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city, e.g. Zürich or 東京"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer"}}, "required": ["city"]}}}
WRITE = {"type": "function", "function": {
    "name": "write_file", "description": "Write text to a file.\nOverwrites\tit.",
    "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}, "append": {"type": "boolean"}, "lines": {"type": "array"},
        "ratio": {"type": "number"}, "meta": {"type": "object"}, "note": {"type": ["string", "null"]}}}}}
SEARCH = {"type": "function", "function": {"name": "search", "description": "", "parameters": {
    "type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer", "default": 10},
    "threshold": {"type": "number", "default": 1e15, "minimum": 0.0, "maximum": 1e16}}}}}


def call(name, arguments, wrapped=True):
    f = {"name": name, "arguments": arguments}
    return {"type": "function", "function": f} if wrapped else f


def conversations():
    """(name, request) pairs: messages, tools, add_generation_prompt, enable_thinking.

    Not here: an assistant message with reasoning_content "" and "</think>" in its content. The template
    then keeps the content whole (reasoning_content is a string), but ChatMessage has no way to tell an
    empty reasoning from none, so renderChat splits the content."""
    def conv(name, messages, tools=None, gen=True, think=True):
        return name, {"messages": messages, "tools": tools, "add_generation_prompt": gen, "enable_thinking": think}

    user = {"role": "user", "content": "What's the weather in Zürich?"}
    every_type = {"path": "out/ä.txt", "append": True, "lines": ["a", 1, 2.5, None, {"k": [True]}], "ratio": 0.25,
                  "days": 3, "meta": {"z": 1, "a": {"nested": "yes"}, "uni": "日本", "esc": "q\"\\\n\t\u0001"},
                  "note": None, "off": False, "big": 1e15, "bigger": 1.5e16, "tiny": 1e-05, "neg": -0.0,
                  "whole": 2.0, "sum": 0.30000000000000004, "text": "  spaced\nlines  ", "empty": "", "list": []}
    multi_step = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Plan a trip: weather first, then search flights."},
        {"role": "assistant", "content": "", "reasoning_content": "Need the weather.",
         "tool_calls": [call("get_weather", {"city": "Paris", "days": 2})]},
        {"role": "tool", "content": "{\"temp\": 21, \"sky\": \"clear\"}"},
        {"role": "assistant", "content": "Weather is fine. Now flights.", "reasoning_content": "Next: search.",
         "tool_calls": [call("search", {"q": "flights to Paris", "limit": 5})]},
        {"role": "tool", "content": "3 results"},
        {"role": "assistant", "content": "The weather is clear and there are 3 flights.",
         "reasoning_content": "\nSummarize.\n"},
    ]
    return [
        conv("plain, thinking on", [{"role": "user", "content": "Hello!"}]),
        conv("plain, thinking off", [{"role": "user", "content": "  Hello!\n"}], think=False),
        conv("system, no generation prompt",
             [{"role": "system", "content": " Be brief. "}, {"role": "user", "content": "Hi"}], gen=False),
        conv("system with tools", [{"role": "system", "content": "You are a weather bot.\n"}, user],
             tools=[WEATHER, WRITE, SEARCH]),
        conv("tools without system", [user], tools=[WEATHER]),
        conv("tools, blank system", [{"role": "system", "content": " \n "}, user], tools=[SEARCH], think=False),
        conv("empty tools list", [{"role": "system", "content": "S"}, user], tools=[]),
        conv("several tool calls in one turn, every argument type", [
            {"role": "user", "content": "Check two cities and save."},
            {"role": "assistant", "content": "Checking both.", "tool_calls": [
                call("get_weather", {"city": "Oslo", "unit": "celsius"}),
                call("get_weather", {"city": "Lima", "days": 7}, wrapped=False),
                call("write_file", every_type)]},
            {"role": "tool", "content": "cold"},
            {"role": "tool", "content": "warm"},
            {"role": "tool", "content": "ok"},
        ], tools=[WEATHER, WRITE]),
        conv("multi-step tool use, answered", multi_step, tools=[WEATHER, SEARCH], gen=False),
        conv("multi-step tool use, continuing", multi_step[:-1], tools=[WEATHER, SEARCH]),
        conv("multi-step tool use, next question", multi_step + [{"role": "user", "content": "And Rome?"}],
             tools=[WEATHER, SEARCH], think=False),
        conv("reasoning before and after the last query", [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": "4", "reasoning_content": "Easy."},
            {"role": "user", "content": "3+3?"},
            {"role": "assistant", "content": "6", "reasoning_content": "  Also easy.  "},
        ], gen=False),
        conv("<think> inside content", [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "<think>\nGreeting.\n</think>\n\nHello!"},
            {"role": "user", "content": "Again"},
            {"role": "assistant", "content": "\n<think>\n\nStill greeting.\n\n</think>\n\n\nHello again!"},
        ], gen=False),
        conv("several </think> in content", [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": "pre<think>a</think>mid<think>b</think>\nend"},
        ], gen=False),
        conv("reasoning_content beside <think> content", [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": "<think>kept</think>answer", "reasoning_content": "given"},
        ]),
        conv("content without reasoning after the query, tool call without content", [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "tool_calls": [call("get_weather", {"city": "Bern"})]},
            {"role": "tool", "content": " sunny \n"},
        ], tools=[WEATHER]),
        conv("tool call with content and thinking split", [
            {"role": "user", "content": "save it"},
            {"role": "assistant", "content": "<think>\nSave.\n</think>\n\nSaving now.",
             "tool_calls": [call("write_file", {"path": "a", "lines": [], "meta": {}})]},
            {"role": "tool", "content": "saved"},
            {"role": "assistant", "content": "Done."},
        ], tools=[WRITE], gen=False),
        conv("tool call without arguments", [
            {"role": "user", "content": "search"},
            {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "search"}}]},
        ], tools=[SEARCH], gen=False),
        conv("user content as text parts, unicode and whitespace", [
            {"role": "user", "content": [{"type": "text", "text": "\u3000Grüße, "}, {"type": "text", "text": "世界 🌍\x1c"}]},
            {"role": "assistant", "content": "\u00a0Hallo!\t"},
            {"role": "user", "content": "<tool_response>not only</tool_response> but a query"},
        ]),
        conv("a user message of tool responses is not the query", [
            {"role": "user", "content": "Real question"},
            {"role": "assistant", "content": "Thinking it over.", "reasoning_content": "hmm"},
            {"role": "user", "content": "<tool_response>\nresult\n</tool_response>"},
            {"role": "assistant", "content": "Final.", "reasoning_content": "done"},
        ], gen=False),
        conv("error: no user query", [
            {"role": "system", "content": "S"},
            {"role": "assistant", "content": "A", "tool_calls": [call("search", {"q": "x"})]},
            {"role": "tool", "content": "r"},
        ], tools=[SEARCH]),
        conv("error: only tool responses from the user", [
            {"role": "user", "content": "<tool_response>\nr\n</tool_response>"}]),
        conv("error: no messages", []),
        conv("error: system message not first", [
            {"role": "user", "content": "Hi"}, {"role": "system", "content": "late"}]),
        conv("error: unknown role", [{"role": "user", "content": "Hi"}, {"role": "critic", "content": "meh"}]),
    ]


def reference(template, request):
    try:
        rendered, _ = render_jinja_template(
            conversations=[request["messages"]], tools=request["tools"], chat_template=template,
            add_generation_prompt=request["add_generation_prompt"], enable_thinking=request["enable_thinking"])
        return {"text": rendered[0]}
    except jinja2.exceptions.TemplateError as e:
        return {"error": str(e)}


def ours(driver, requests):
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests).encode()
    result = subprocess.run([driver, "chat-template"], input=lines, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"FAILED: {driver} chat-template exited {result.returncode}:\n{result.stderr.decode(errors='replace')}")
    answers = [json.loads(line) for line in result.stdout.split(b"\n") if line]
    if len(answers) != len(requests):
        sys.exit(f"FAILED: {driver} answered {len(answers)} lines for {len(requests)}")
    return answers


def difference(want, got):
    if "error" in want or "error" in got:
        return f"  reference: {want}\n  ours:      {got}"
    diff = difflib.unified_diff(want["text"].splitlines(keepends=True), got["text"].splitlines(keepends=True),
                                "reference", "ours", n=2)
    return "".join("  " + repr(line)[1:-1] + "\n" for line in diff)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--driver", required=True, help="the qgpu_conformance_text executable")
    p.add_argument("--template", required=True, help="Qwen3.5's chat template (.jinja)")
    args = p.parse_args()
    start = time.monotonic()
    template = pathlib.Path(args.template).read_text()
    cases = conversations()
    want = [reference(template, request) for _, request in cases]
    got = ours(args.driver, [request for _, request in cases])

    identical = errors = 0
    for (name, _), w, g in zip(cases, want, got):
        same = ("error" in w and "error" in g) or ("text" in w and w == g)
        identical += same
        errors += same and "error" in w
        if not same:
            print(f"MISMATCH: {name}\n{difference(w, g)}")
    print(f"chat template: {len(cases)} conversations, {identical} identical ({errors} of them errors on both "
          f"sides) ({time.monotonic() - start:.1f} s)")
    return 0 if identical == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
