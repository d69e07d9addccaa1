"""Our tokenizer (qgpu_text's Tokenizer, through qgpu_conformance_text) against Hugging Face tokenizers.

Trains a byte-level BPE with `tokenizers` that is declared as Qwen3.5's tokenizer.json declares its own
(normalizer NFC; pre_tokenizer Split with Qwen3.5's regex, isolated, then ByteLevel without its regex;
decoder ByteLevel; Qwen's added tokens, not normalized), then encodes and decodes thousands of varied
strings with both and wants the same ids and the same decoded text for every one.

The corpus is generated deterministically. It leaves out the few code points whose NFC differs between
the Unicode data tokenizers normalizes with (its unicode-normalization-alignments crate's, Unicode 9.0
by what it gets wrong: the marks assigned since, and U+11938) and the Unicode 14.0 data our tables are
generated from: there the two normalizers are of different versions, and neither is wrong.
"""
import argparse
import json
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

# Qwen3.5's pre_tokenizer Split regex, as its tokenizer.json spells it.
QWEN35_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
           "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
           "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]
ADDED = ["<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
         "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
VOCAB_SIZE = 4000


def arguments():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--driver", required=True, help="the qgpu_conformance_text executable")
    p.add_argument("--count", type=int, default=10000, help="generated strings to compare (besides the fixed ones)")
    p.add_argument("--workdir", help="where to write tokenizer.json (default: a temporary directory)")
    return p.parse_args()


# --- Which code points the corpus may use -------------------------------------------------------------

def nfc_candidates():
    """The code points NFC can change or be changed by: a combining class, a decomposition, or in a pair."""
    out = set()
    for cp in range(0x110000):
        c = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if unicodedata.combining(c) or unicodedata.decomposition(c):
            out.add(cp)
            d = unicodedata.decomposition(c)
            if d and not d.startswith("<"):
                out.update(int(x, 16) for x in d.split())
    return out


def version_skew():
    """Code points that tokenizers' NFC (older Unicode data) and Python's unicodedata normalize apart."""
    hf = normalizers.NFC()
    skew = set()
    for cp in nfc_candidates():
        c = chr(cp)
        for probe in (c, "a" + c + "\u0301", "\u0301" + c, unicodedata.normalize("NFD", c)):
            if hf.normalize_str(probe) != unicodedata.normalize("NFC", probe):
                skew.add(cp)
                break
    return skew


class Pools:
    """Character pools for the generators, without the version-skewed code points."""

    def __init__(self, skew):
        self.skew = skew
        ok = lambda cps: [chr(c) for c in cps if c not in skew and unicodedata.category(chr(c)) not in ("Cn", "Cs")]
        span = lambda lo, hi: range(lo, hi + 1)
        self.latin = ok(list(span(0x41, 0x5A)) + list(span(0x61, 0x7A)))
        self.latin_ext = ok(span(0xC0, 0x24F))
        self.greek = ok(list(span(0x386, 0x3CE)) + list(span(0x1F00, 0x1FFC)))
        self.cyrillic = ok(span(0x400, 0x45F))
        self.vietnamese = ok(span(0x1EA0, 0x1EF9))
        self.cjk = ok(span(0x4E00, 0x9FFF))
        self.cjk_ext = ok(list(span(0x20000, 0x2A6DF)) + list(span(0x3400, 0x4DBF)))
        self.kana = ok(list(span(0x3041, 0x3096)) + list(span(0x30A1, 0x30FA)))
        self.hangul = ok(span(0xAC00, 0xD7A3))
        self.arabic = ok(span(0x621, 0x64A))
        self.harakat = ok(span(0x64B, 0x652))
        self.hebrew = ok(span(0x5D0, 0x5EA))
        self.hebrew_points = ok(span(0x5B0, 0x5C2))
        self.devanagari = ok(span(0x904, 0x939))
        self.devanagari_signs = ok(list(span(0x93C, 0x94D)) + [0x901, 0x902, 0x903])
        self.thai = ok(span(0xE01, 0xE3A))
        marks = [cp for cp in range(0x300, 0x370)] + list(span(0x483, 0x487)) + list(span(0x591, 0x5C7)) + \
            list(span(0x610, 0x61A)) + list(span(0x64B, 0x65F)) + list(span(0x1DC0, 0x1DFF)) + \
            list(span(0x20D0, 0x20F0)) + list(span(0xFE20, 0xFE2F)) + list(span(0x302A, 0x302F)) + \
            [0x3099, 0x309A, 0x93C, 0x94D, 0x9BC, 0x9CD, 0xE38, 0xE39, 0xE48, 0xE49, 0x1D165, 0x1D167, 0x1D16D]
        self.marks = [c for c in ok(marks) if unicodedata.category(c).startswith("M")]
        self.digits = ok(list(span(0x30, 0x39)) + list(span(0x660, 0x669)) + list(span(0x966, 0x96F)) +
                         list(span(0xFF10, 0xFF19)) + [0xB2, 0xB3, 0xB9, 0xBC, 0x2160, 0x2161, 0x216B, 0x2460, 0x2461])
        self.punct = list("!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~'") + ok([0xA1, 0xBF, 0xAB, 0xBB, 0x2014, 0x2013, 0x2026,
                                                                     0x201C, 0x201D, 0x2018, 0x2019, 0x3001, 0x3002,
                                                                     0x300C, 0x300D, 0xFF01, 0xFF1F, 0x60C, 0x61F,
                                                                     0x20AC, 0xA3, 0xA5, 0x2122, 0xA9, 0x2192])
        self.spaces = [" ", " ", " ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x85", "\xa0", "\u2028", "\u3000",
                       "\u2000", "\u2009", "\u202f", "\u200b", "\ufeff"]
        # Whatever NFC does something with: singletons, exclusions, non-starter decompositions, ...
        self.nfc_special = ok([0x212B, 0x2126, 0x212A, 0x340, 0x341, 0x343, 0x344, 0x374, 0x37E, 0x387, 0x1FEF,
                               0x2000, 0x2001, 0x2329, 0x232A, 0xF900, 0xF901, 0xFA10, 0x2F800, 0x2F801,
                               0x958, 0x959, 0x95A, 0x95F, 0x9DC, 0x9DD, 0xA33, 0xA36, 0xF43, 0xF73, 0xF75, 0xF81,
                               0xFB1D, 0xFB1F, 0xFB2A, 0xFB2B, 0xFB4E, 0x1D15E, 0x1D15F, 0x1D160, 0x1D164, 0x2ADC,
                               0x1E9B, 0x1E0A, 0x1E0C, 0x1E69, 0x1E08, 0x1F82, 0x1FB3, 0x1FC1, 0x1FED, 0x1FEE])
        self.jamo_l, self.jamo_v = ok(span(0x1100, 0x1112)), ok(span(0x1161, 0x1175))
        self.jamo_t = ok(span(0x11A8, 0x11C2))
        self.jamo_old = ok(list(span(0x1113, 0x115F)) + list(span(0x1176, 0x11A7)) + list(span(0x11C3, 0x11FF)))
        planes = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
        self.any = ok(cp for cp in planes if unicodedata.category(chr(cp)) not in ("Co", "Cn", "Cs"))
        self.bmp = [c for c in self.any if ord(c) < 0x10000]


# --- The corpus --------------------------------------------------------------------------------------

WORDS = ("the of and to in is you that it he was for on are as with his they at be this have from or one had "
         "by word but not what all were we when your can said there use an each which she do how their if will "
         "up other about out many then them these so some her would make like him into time has look two more "
         "write go see number no way could people my than first water been call who oil its now find long down "
         "day did get come made may part tokenizer byte merge vocabulary Hello World Python JSON HTTP GPU CUDA "
         "naïve café résumé Zürich Ångström Straße façade coöperate").split()
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
STEMS = ["it", "don", "we", "they", "I", "you", "she", "can", "won", "John", "O", "rock", "that", "ISN", "x", "12"]
CODE = [
    "def f(x):\n\treturn x * 2\n", "for (int i = 0; i < n; ++i) {\n    sum += a[i];\n}\n",
    "if x==1:\n        pass\r\n", "const y = {a: 1, 'b': [2, 3]};  // comment\n", "#include <vector>\n\n\nint main() {}",
    "    \t  mixed = True  \n", "SELECT * FROM t WHERE id >= 42 AND name != 'x';", "x = a->b::c<<2 >>= 3 !== 4",
    "/** doc */\n/* block */\n", "\t\t\tdeep\n\t\t\t\tdeeper", "print(f\"{x!r:>10}\")", "  $ ls -la | grep \"*.py\"\n",
    "{\"key\": \"value\", \"n\": 123.45e-6, \"ok\": true}", "<div class=\"x\">&amp;</div>", "a\\nb\\tc\\\\d",
    "    ", "\n\n\n", "x    \n    y", "fn main() -> Result<(), Box<dyn Error>> {", "@decorator\nclass A(B, metaclass=M):",
]
EMOJI = ["😀", "👍", "👍🏽", "👍🏿", "👨‍👩‍👧‍👦", "👩🏽‍💻", "🏳️‍🌈", "🇺🇸", "🇯🇵", "1️⃣", "#️⃣", "❤️", "❤", "🧑‍🤝‍🧑",
         "👁️‍🗨️", "🤷‍♀️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "✊🏾", "🙂", "🔥🔥🔥", "☕", "🦀", "👨🏻‍🦰"]
TURKISH = ["İstanbul", "ıspanak", "IĞDIR", "ığdır", "İ", "ı", "i̇", "DİYARBAKIR", "Şişli", "çöğüş", "I'M", "İ'm"]
FIXED = [
    "", " ", "  ", "\n", "\r\n", "\t", "a", "é", "e\u0301", "E\u0301", "\u212b", "A\u030a", "\u2126", "\u212a",
    "\u1100\u1161", "\u1100\u1161\u11a8", "\uac00\u11a8", "\u1100\u1161\u0301\u11a8", "\u0958", "\u0915\u093c",
    "\u0344", "a\u0323\u0301", "a\u0301\u0323", "q\u0307\u0323", "\u1e0b\u0323", "\u0301", "\u0301a", "a\u0301\u0301",
    "\u304b\u3099", "\u30cf\u309a", "\u2000x\u2001", "Ω\u0301", "\u00c5\u0301", "s\u0323\u0307", "ſ\u0307",
    "it's", "IT'S", "we'RE", "they'Ve", "I'M", "you'LL", "he'D", "'s", "'S", "''s", "' s", "'ſ", "’s",
    "don't stop", "123456789012345678901234567890", "3.14159", "1,000,000", "٠١٢٣", "１２３",
    "<|im_start|>user\nHello<|im_end|>\n", "<think>\n\n</think>\n\n", "é<|im_end|>\u0301", "e<|im_end|>\u0301x",
    "<|im_start|><|im_end|>", "<|im_", "<|im_end|", "<<|im_end|>>", "<tool_call>\n{\"a\": 1}\n</tool_call>",
    "<|endoftext|><|endoftext|>", "x<think>y</think>z", "   leading", "trailing   ", "  both  ", "a\r\nb\rc\nd",
    "\n\n  \n", "  \t\n", "tab\there", "multi    space", "中文字符", "日本語のテキスト、です。", "한국어 텍스트",
    "\u1112\u1161\u11ab\u1100\u1173\u11af", "مرحبا بالعالم", "مَرْحَبًا", "שָׁלוֹם", "नमस्ते दुनिया", "क़िला",
    "สวัสดีครับ", "Ελληνικά ἄλφα", "Привет, мир!", "Tiếng Việt", "Tie\u0302\u0301ng Vie\u0323\u0302t",
    "👨‍👩‍👧‍👦 family", "👍🏽👍🏿", "1️⃣2️⃣", "\u200d", "\ufe0f", "a\u20e3", "x\u0300\u0300\u0300\u0300\u0300",
]


class Corpus:
    def __init__(self, pools, seed):
        self.p = pools
        self.r = random.Random(seed)
        self.kinds = [self.prose, self.contractions, self.code, self.digits, self.cjk, self.rtl_and_indic,
                      self.european, self.emoji, self.combining, self.non_nfc, self.hangul_jamo, self.whitespace,
                      self.special_tokens, self.soup, self.mixed]

    def pick(self, seq, n=1):
        return "".join(self.r.choice(seq) for _ in range(n))

    def space(self):
        return " " if self.r.random() < 0.8 else self.pick(self.p.spaces)

    def prose(self):
        words = [self.r.choice(WORDS) for _ in range(self.r.randint(1, 25))]
        out = []
        for w in words:
            w = w.capitalize() if self.r.random() < 0.15 else w.upper() if self.r.random() < 0.05 else w
            out.append(w + (self.pick(",.;:!?") if self.r.random() < 0.15 else ""))
        text = " ".join(out)
        return text + self.pick([".", "!", "?", "...", "", "\n", " (see p. 42)", " — fin", "\u2026"])

    def contractions(self):
        parts = []
        for _ in range(self.r.randint(1, 6)):
            c = self.r.choice(CONTRACTIONS + ["'x", "'", "’s", "'ſ", "''"])
            c = "".join(ch.upper() if self.r.random() < 0.4 else ch for ch in c)
            parts.append(self.r.choice(STEMS + [""]) + c + self.pick(["", " ", "  ", ".", "s", "\n"]))
        return "".join(parts)

    def code(self):
        lines = [self.r.choice(CODE) for _ in range(self.r.randint(1, 4))]
        text = "".join(lines)
        if self.r.random() < 0.3:
            text = text.replace("\n", "\r\n")
        if self.r.random() < 0.3:
            text = text.replace("    ", "\t")
        return self.pick([" ", "\t", ""]) * self.r.randint(0, 9) + text

    def digits(self):
        parts = []
        for _ in range(self.r.randint(1, 4)):
            n = self.r.randint(1, 60)
            parts.append(self.pick("0123456789", n) if self.r.random() < 0.7 else self.pick(self.p.digits, n))
            parts.append(self.pick(["", " ", ".", ",", "-", "abc", "e+", "%", " km", "x"]))
        return "".join(parts)

    def cjk(self):
        out = []
        for _ in range(self.r.randint(1, 8)):
            pool = self.r.choice([self.p.cjk, self.p.cjk, self.p.kana, self.p.hangul, self.p.cjk_ext])
            out.append(self.pick(pool, self.r.randint(1, 8)))
            out.append(self.pick(["", "", "、", "。", "「", "」", " ", "！", "？", "abc", "123", "\n"]))
        return "".join(out)

    def rtl_and_indic(self):
        kind = self.r.randrange(4)
        words = []
        for _ in range(self.r.randint(1, 6)):
            n = self.r.randint(1, 7)
            if kind == 0:
                w = "".join(self.pick(self.p.arabic) + (self.pick(self.p.harakat) if self.r.random() < 0.4 else "")
                            for _ in range(n))
            elif kind == 1:
                w = "".join(self.pick(self.p.hebrew) + (self.pick(self.p.hebrew_points, 2) if self.r.random() < 0.4
                                                        else "") for _ in range(n))
            elif kind == 2:
                w = "".join(self.pick(self.p.devanagari) + (self.pick(self.p.devanagari_signs)
                                                            if self.r.random() < 0.5 else "") for _ in range(n))
            else:
                w = self.pick(self.p.thai, n)
            words.append(w)
        return self.pick([" ", "، ", "؟ ", " \u200f", "\n"]).join(words) + self.pick(["", ".", "؟", "!"])

    def european(self):
        kind = self.r.randrange(3)
        if kind == 0:
            return " ".join(self.r.choice(TURKISH) for _ in range(self.r.randint(1, 5)))
        pool = self.r.choice([self.p.latin_ext, self.p.greek, self.p.cyrillic, self.p.vietnamese])
        words = [self.pick(pool + self.p.latin, self.r.randint(1, 9)) for _ in range(self.r.randint(1, 6))]
        return " ".join(words)

    def emoji(self):
        parts = [self.r.choice(EMOJI) + self.pick(["", "", " ", "a", "\u200d", "\ufe0f", "1"])
                 for _ in range(self.r.randint(1, 6))]
        return "".join(parts)

    def combining(self):
        out = []
        for _ in range(self.r.randint(1, 6)):
            base = self.pick(self.r.choice([self.p.latin, self.p.latin_ext, self.p.greek, self.p.cyrillic,
                                            self.p.kana, self.p.digits, self.p.punct, [" "]]))
            out.append(base + self.pick(self.p.marks, self.r.randint(0, 4)))
        return "".join(out)

    def non_nfc(self):
        source = self.r.choice([self.european, self.prose, self.cjk, self.combining, self.hangul_syllables])()
        form = self.r.choice(["NFD", "NFD", "NFKD"])
        text = unicodedata.normalize(form, source)
        if self.r.random() < 0.4:  # only partly decomposed
            cut = self.r.randint(0, len(text))
            text = unicodedata.normalize("NFC", text[:cut]) + text[cut:]
        if self.r.random() < 0.5:
            text += self.pick(self.p.nfc_special, self.r.randint(1, 3)) + self.pick(self.p.marks)
        return text

    def hangul_syllables(self):
        return self.pick(self.p.hangul, self.r.randint(1, 6))

    def hangul_jamo(self):
        out = []
        for _ in range(self.r.randint(1, 6)):
            kind = self.r.randrange(5)
            if kind == 0:
                out.append(self.pick(self.p.jamo_l) + self.pick(self.p.jamo_v))
            elif kind == 1:
                out.append(self.pick(self.p.jamo_l) + self.pick(self.p.jamo_v) + self.pick(self.p.jamo_t))
            elif kind == 2:
                out.append(self.pick(self.p.hangul) + self.pick(self.p.jamo_t + self.p.jamo_v))
            elif kind == 3:
                out.append(self.pick(self.p.jamo_l + self.p.jamo_v + self.p.jamo_t + self.p.jamo_old, 3))
            else:
                out.append(self.pick(self.p.jamo_l) + self.pick(self.p.marks) + self.pick(self.p.jamo_v))
            out.append(self.pick(["", "", " ", "\n"]))
        return "".join(out)

    def whitespace(self):
        out = [self.pick(self.p.spaces, self.r.randint(0, 5))]
        for _ in range(self.r.randint(0, 4)):
            out.append(self.r.choice(WORDS) + self.pick(self.p.spaces, self.r.randint(1, 6)))
        return "".join(out)

    def special_tokens(self):
        tokens = SPECIAL + ADDED + ["<|im_", "|>", "<think", "</", "<|"]
        out = []
        for _ in range(self.r.randint(1, 6)):
            out.append(self.r.choice(tokens))
            out.append(self.r.choice([self.prose, self.combining, self.whitespace, lambda: "", lambda: "\n",
                                      self.emoji, self.non_nfc])())
        return "".join(out)

    def soup(self):
        pool = self.p.bmp if self.r.random() < 0.6 else self.p.any
        return self.pick(pool + self.p.marks + self.p.spaces, self.r.randint(1, 30))

    def mixed(self):
        kinds = [k for k in self.kinds if k != self.mixed]
        return self.space().join(self.r.choice(kinds)() for _ in range(self.r.randint(2, 4)))

    def strings(self, count):
        return [self.r.choice(self.kinds)() for _ in range(count)]


# --- The two tokenizers ------------------------------------------------------------------------------

def train(corpus_strings):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN35_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus_strings, trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in ADDED])
    return tok


def check_declared(path):
    """The written tokenizer.json declares what Qwen3.5's does (else the test would test something else)."""
    j = json.loads(path.read_text())
    split, byte_level = j["pre_tokenizer"]["pretokenizers"]
    assert j["normalizer"] == {"type": "NFC"}, j["normalizer"]
    assert split["type"] == "Split" and split["pattern"] == {"Regex": QWEN35_SPLIT}, split
    assert split["behavior"] == "Isolated" and split["invert"] is False, split
    assert byte_level == {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                          "use_regex": False}, byte_level
    assert j["decoder"]["type"] == "ByteLevel", j["decoder"]
    assert all(a["normalized"] is False for a in j["added_tokens"]), "added tokens must not be normalized"
    return len(j["model"]["vocab"]), len(j["added_tokens"])


def ours(driver, path, texts):
    lines = "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts).encode()
    result = subprocess.run([driver, "tokenize", str(path)], input=lines, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"FAILED: {driver} tokenize exited {result.returncode}:\n{result.stderr.decode(errors='replace')}")
    answers = [json.loads(line) for line in result.stdout.split(b"\n") if line]  # not splitlines(): U+2028
    if len(answers) != len(texts):
        sys.exit(f"FAILED: {driver} answered {len(answers)} lines for {len(texts)}")
    return answers


def decoded_text(answer):
    if "decoded" in answer:
        return answer["decoded"]
    return bytes(answer["decoded_bytes"]).decode("utf-8", errors="replace")


def describe(tok, text, hf_ids, our):
    tokens = lambda ids: [tok.id_to_token(i) for i in ids]
    split = tok.pre_tokenizer.pre_tokenize_str(tok.normalizer.normalize_str(text))
    return "\n".join([
        f"  text:     {text!r}",
        f"  nfc:      {unicodedata.normalize('NFC', text)!r}",
        f"  hf split: {[piece for piece, _ in split]}",
        f"  hf ids:   {hf_ids}  {tokens(hf_ids)}",
        f"  our ids:  {our['ids']}  {tokens(our['ids'])}",
    ])


def main():
    args = arguments()
    start = time.monotonic()
    skew = version_skew()
    pools = Pools(skew)
    training = Corpus(pools, seed=1).strings(30000) + FIXED
    texts = FIXED + Corpus(pools, seed=2).strings(args.count)
    hf_nfc = normalizers.NFC()
    skewed = [t for t in texts if hf_nfc.normalize_str(t) != unicodedata.normalize("NFC", t)]
    if skewed:  # the pools leave those code points out; a generator that brings one in is a bug here
        sys.exit(f"FAILED: {len(skewed)} strings normalize apart across Unicode versions, e.g. {skewed[0]!r}")

    work = pathlib.Path(args.workdir) if args.workdir else pathlib.Path(tempfile.mkdtemp(prefix="qgpu-tokenizer-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tok = train(training)
        path = work / "tokenizer.json"
        tok.save(str(path))
        vocab, added = check_declared(path)
        hf_ids = [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
        hf_decoded = tok.decode_batch(hf_ids, skip_special_tokens=False)
        answers = ours(args.driver, path, texts)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    id_bad = [i for i, a in enumerate(answers) if a["ids"] != hf_ids[i]]
    decode_bad = [i for i, a in enumerate(answers) if decoded_text(a) != hf_decoded[i]]
    not_nfc = sum(unicodedata.normalize("NFC", t) != t for t in texts)
    print(f"tokenizer: vocabulary {vocab} + {added} added tokens; {not_nfc} strings not in NFC; the corpus leaves "
          f"out {len(skew)} code points whose NFC differs between tokenizers' Unicode data and Python's "
          f"{unicodedata.unidata_version}")
    for i in id_bad[:5]:
        print(f"id mismatch, string {i}:\n{describe(tok, texts[i], hf_ids[i], answers[i])}")
    for i in decode_bad[:5]:
        print(f"decode mismatch, string {i}: {texts[i]!r}\n  hf:  {hf_decoded[i]!r}\n  our: {decoded_text(answers[i])!r}")
    print(f"tokenizer: {len(texts)} strings, {len(id_bad)} id mismatches, {len(decode_bad)} decode mismatches "
          f"({time.monotonic() - start:.1f} s)")
    return 1 if id_bad or decode_bad else 0


if __name__ == "__main__":
    sys.exit(main())
