"""Untrusted text (judgments, summaries, a user's question) made safe to put inside a prompt.

A prompt injection is data that the model reads as instructions. The defence here is structural first, and a
phrase list only second:

1. **Nothing invisible or ambiguous reaches the model** (:func:`clean`): Unicode is NFKC-normalised (full-width
   ``＜｜im_start｜＞`` becomes ``<|im_start|>``, ligatures and compatibility forms become plain letters), and
   format characters (zero-width spaces and joiners, bidi controls, soft hyphens, Unicode tag characters that
   smuggle invisible ASCII), variation selectors and control characters are removed.
2. **Data cannot speak in the chat template's voice**: the tokens that delimit chat turns (``<|im_start|>``,
   ``<|im_end|>``, ``<|endoftext|>`` and every other ``<|...|>`` token of Qwen, Llama 3 or Phi, ``[INST]``,
   ``<<SYS>>``, ``<s>``, ``</s>``, ``<start_of_turn>``, ``<tool_call>``) and tag-like markers that could close a
   data block are replaced by a newline, which none of their patterns matches, so one pass removes them all and
   removing one cannot splice another together. llama.cpp parses special tokens in the formatted prompt, so
   ``<|im_start|>system`` in a judgment would otherwise open a real system turn.
3. **Data sits inside delimiters it cannot close**: every prompt (:class:`backends.llm.Prompt`) draws a fresh
   random :func:`nonce` and fences each data block with tags that carry it (``<passages-9f2c41d07be3>``); the
   nonce is removed from every field (:func:`without`), so no text can contain the closing tag, and the system
   prompt says that what is inside is data, in whatever language it is written.
4. **A phrase check flags** (:func:`screen`) sentences addressed to a model ("ignore previous instructions",
   "SYSTEM:", "reply only with", and paraphrases in French, Spanish, Hindi and Chinese), matched on the cleaned,
   case-folded text with common Cyrillic and Greek look-alike letters mapped to Latin. :func:`untrusted` drops
   them. It is one signal, not the defence: a phrasing it misses still arrives fenced, as data.
5. **Outputs are checked** by their callers (search.answer.checks, search.explain.llm, indexer.refine): besides
   their sources, an output must not read as an instruction (:func:`screen`) nor repeat words that its source
   has only in a sentence addressed to an automated reader (:func:`borrowed_from_address`), since a small
   model told to copy its sources' words copies a planted sentence with the rest.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass

# Control characters other than tab and newline, and the C1 block.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Invisible characters that are not category Cf: variation selectors, the combining grapheme joiner, fillers.
_INVISIBLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u3164\ufe00-\ufe0f\uffa0"
                        "\U000e0100-\U000e01ef]")
# Chat-template tokens of the common open model families (after NFKC, so full-width look-alikes are included).
# None of these patterns matches a newline, and each match is replaced by one, so a single pass removes them
# all: no match can span a replacement, so taking one marker out never splices another together (and hostile
# nesting such as ``<|<|<|x|>|>|>`` costs one linear pass, not one pass per level).
SPECIAL_TOKEN = re.compile(
    r"<\|[^<>|\s]{0,40}\|>"  # Qwen / ChatML, Llama 3, Phi, DeepSeek: <|im_start|>, <|eot_id|>, <|user|>
    r"|</?s>"  # Llama 2 / Mistral sentence markers <s>, </s>
    r"|\[/?(?:inst|sys|system_prompt|available_tools|tool_calls|tool_results)\]"  # [INST], [/INST]
    r"|<</?sys>>"  # <<SYS>>, <</SYS>>
    r"|</?(?:start_of_turn|end_of_turn|bos|eos|pad|unk|mask|tool_call|tool_response|think)>",
    re.I,
)
# Tag-like markers (``</judgment>``, ``<passages-12ab>``, ``<system role="x">``) that could close or open a block.
_TAG = re.compile(r"<[ \t]*/?[ \t]*[a-z_][\w\-:.]{0,40}(?:[ \t][^<>\n]{0,80})?[ \t]*/?>", re.I)
# Sentence ends in Latin, Devanagari (danda) and CJK punctuation.
_SENTENCE_END = re.compile(r"(?<=[.!?\u0964\u0965])\s+|(?<=[\u3002\uff01\uff1f])")

# Where :func:`screen` found a chat-template token: a control character, so none survives cleaning otherwise.
_TOKEN_MARK = "\x00"
_CHARS_PER_WORD = 40

# Look-alike letters mapped to Latin for the phrase check only (the text sent keeps them).
_CONFUSABLE = str.maketrans("асеіјорѕухԁӏɡνοαειρτυκχ", "aceijopsyxdlgvoaeiptukx")

# Sentences that address a model rather than state the law, per language, on cleaned, case-folded text.
_PHRASES = (
    # English: orders to drop the instructions (only words a judgment does not use of itself: "ignored the
    # previous statements" or "disregard the rules" are the law's own business), roles, answer-shaping orders.
    r"\b(ignore|disregard|forget|override|overlook|bypass|skip|abandon|discard|pay no attention to|"
    r"do not follow|don't follow|stop following|set aside)\b.{0,50}"
    r"\b(instructions?|prompts?|system (message|prompt)|guardrails|your (rules|guidelines|directions|orders|task))\b",
    r"\b(ignore|disregard|forget|discard)\b.{0,12}\b(everything|all|anything)\b.{0,12}"
    r"\b(above|before|previous|prior|earlier|preceding|you (were|have been) told)\b",
    r"\b(ignore|disregard|forget) (all of |everything )?the (above|foregoing|preceding|previous)"
    r"(\s*[.,;:!]|\s+and\b|$)",
    r"\b(above|previous|prior|earlier|preceding) (text|context|messages?|conversation|content)\b",
    r"^\W*(system|assistant|developer|user|human|ai)\s*(message|prompt)?\s*:",
    r"\byou are (now |no longer |actually )?(an?|the|my|not an?) ?(ai|assistant|language model|chatbot|llm|model|"
    r"bot)\b",
    r"\b(reply|respond|answer|output|say|print|write|return)\b.{0,20}\b(only|solely|just|exactly)\b.{0,20}"
    r"\b(word|phrase|token|text|string|yes|no|following)\b",
    r"\b(reply|respond|answer|output|say|print|write|return|include|repeat|begin|end|start)\b.{0,30}"
    r"\b(the word|the phrase|the token|the string|the code ?word|verbatim)\b",
    r"\b(new|updated|real|true|actual|secret|hidden) (instructions?|task|rules|role|system prompt|orders)\b",
    r"\byour (real|true|new|actual|only) (task|instructions?|goal|job|purpose)\b",
    r"\b(the|an?|any|every) (ai|assistant|language model|llm|chatbot|model|summari[sz]er) "
    r"(must|should|shall|will|is to|has to|needs to)\b",
    r"\b(from now on|henceforth|hereafter)\b.{0,20}\b(you|reply|answer|respond|say|output)\b",
    r"\bpretend (to be|you are|that you)\b|\bsystem prompt\b|\bjailbreak|\b(dan|developer) mode\b",
    r"\b(tell|inform) the user\b",
    # French
    r"\b(ignore[rsz]?|oublie[rsz]?|ne (tenez|tiens) (pas|plus) compte)\b.{0,50}"
    r"\b(instructions?|consignes?|tout ce qui pr[eé]c[eè]de)\b",
    r"\br[eé]pond(s|ez|re)?\b.{0,20}\b(uniquement|seulement)\b",
    r"\b(tu es|vous [eê]tes) (maintenant |d[eé]sormais )?(un |une |l')?(ia|assistant|intelligence artificielle)",
    r"\bnouvelles? (instructions?|consignes?)\b|\b(dites|dis|[eé]cris|[eé]crivez) (le mot|uniquement)\b",
    # Spanish
    r"\b(ignora|ignore|ignorar|ignoren|olvida|olvide|olvidar|omite|omita|descarta|no sigas)\b.{0,50}"
    r"\b(instrucciones|indicaciones|todo lo anterior)\b",
    r"\b(responde|responda|contesta|conteste|di|escribe|escriba)\b.{0,20}\b(solo|solamente|[uú]nicamente)\b",
    r"\bnuevas (instrucciones|indicaciones|reglas)\b|\beres (ahora )?(un|una) (ia|asistente)\b",
    r"\b(di|escribe|escriba|responde con) la palabra\b",
    # Hindi (no \b: Python's word boundary falls inside Devanagari words at vowel signs)
    r"(निर्देश|नियम|आदेश).{0,40}(अनदेखा|नजरअंदाज|नज़रअंदाज़|उपेक्षा|भूल जा|मत मान)",
    r"(अनदेखा|नजरअंदाज|नज़रअंदाज़|उपेक्षा|भूल जा).{0,40}(निर्देश|नियम|आदेश)",
    r"(केवल|सिर्फ|सिर्फ़).{0,30}(लिखो|लिखें|लिखिए|उत्तर दो|उत्तर दें|जवाब दो|जवाब दें|बोलो|कहो|कहें)",
    r"(नए|नया) (निर्देश|आदेश)|तुम (अब )?(एक )?(एआई|सहायक)",
    # Chinese, simplified and traditional
    r"(忽略|忽视|忽視|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不理会|跳过|跳過|不要遵守|别管|別管).{0,20}"
    r"(指令|指示|说明|說明|规则|規則|提示|以上|之前|上面|先前|前面|要求)",
    r"(只|仅|僅|只能|只需)(回答|回复|回覆|输出|輸出|说|說|写|寫)",
    r"你(现在|現在)?(是|扮演)(一个|一個)?(ai|人工智能|助手|语言模型|語言模型)|新的?(指令|指示)|系统提示|系統提示",
)
_INSTRUCTION = re.compile("|".join(f"(?:{unicodedata.normalize('NFKC', p)})" for p in _PHRASES), re.I | re.M)


def clean(text: str) -> str:
    """``text`` without invisible characters, NFKC-normalised, control characters made spaces, chat-template
    tokens and tag-like markers each replaced by a newline. Linear in the text and idempotent (invisible
    characters go before normalising, so ``<|im_\u200bstart|>`` cannot survive as ``<|im_start|>``)."""
    return _clean(text, "\n")


def _clean(text: str, token_mark: str) -> str:
    """:func:`clean`, with chat-template tokens replaced by ``token_mark`` (:func:`screen` marks them to flag
    their sentence)."""
    text = _INVISIBLE.sub("", "".join(c for c in text if unicodedata.category(c) != "Cf"))
    text = _CONTROL.sub(" ", unicodedata.normalize("NFKC", text))
    return _TAG.sub("\n", SPECIAL_TOKEN.sub(token_mark, text))


def folded_for_check(text: str) -> str:
    """The form the phrase check reads: cleaned, case-folded, look-alike letters made Latin, spaces folded."""
    return " ".join(clean(text).casefold().translate(_CONFUSABLE).split())


def addresses_a_model(sentence: str) -> bool:
    """Whether ``sentence`` reads as an instruction to a model (the phrase check, on its folded form)."""
    return bool(_INSTRUCTION.search(folded_for_check(sentence)))


@dataclass(frozen=True)
class Screened:
    """Untrusted text after :func:`screen`: what may be sent, and the sentences that were flagged."""

    text: str
    flagged: tuple[str, ...]


def screen(text: str, max_chars: int | None = None) -> Screened:
    """``text`` cleaned and split into sentences; those addressed to a model, or that held a chat-template
    token, are flagged and left out. Only the first ``max_chars`` characters are read when it is given (the
    check is linear, but a caller that keeps a hundred words need not read a megabyte)."""
    marked = _clean(text if max_chars is None else text[:max_chars], _TOKEN_MARK)
    kept: list[str] = []
    flagged: list[str] = []
    for piece in _SENTENCE_END.split(marked):
        sentence = piece.strip()
        if not sentence:
            continue
        if _TOKEN_MARK in sentence or addresses_a_model(sentence):
            flagged.append(" ".join(sentence.replace(_TOKEN_MARK, " ").split()))
        else:
            kept.append(sentence)
    return Screened(" ".join(kept), tuple(flagged))


def untrusted(text: str, max_words: int) -> str:
    """Text from a document or a user as a prompt may carry it: :func:`screen`-ed (cleaned, flagged sentences
    left out), whitespace folded, at most ``max_words`` words. Idempotent, so text cleaned twice (a passage
    trimmed, then shown) is cleaned once. At most 40 characters a word are read (room for the sentences the
    check leaves out, and for scripts written without spaces)."""
    return " ".join(screen(text, max_words * _CHARS_PER_WORD).text.split()[:max_words])


# Words by which a sentence addresses an automated reader, in the five languages of the phrase check. A
# judgment has little reason to use them, but a planted instruction must name whom it instructs. Such a
# sentence stays in the prompt (these words alone are too weak to drop text for), but an output may not borrow
# from it: see :func:`borrowed_from_address`.
_ADDRESS = re.compile(
    r"\b(automated|artificial intelligence|ai|a\.i\.|chatbots?|language models?|llms?|summari[sz](er|ers|ing)|"
    r"readers? of this|any readers?|automatique|lecteurs?|intelligence artificielle|ia|autom[aá]tic[oa]s?|lector(es)?|"
    r"inteligencia artificial)\b|स्वचालित|पाठक|एआई|自动|自動|阅读|閱讀|人工智能",
    re.I,
)
_WORD = re.compile(r"\w{4,}")
# Function words of four letters or more (English, French, Spanish), and the words any explanation or answer
# uses about any judgment: never evidence that an output borrowed from one sentence.
_COMMON_WORDS = """that this with from have which their there these those they them then than when where what
will would shall should could into upon such been were also only other under about after before being over more
most some very each every both either must made make said says here whom whose while your ours pour dans avec
cette sont mais plus tout elle nous vous leur comme para como esta este pero todo sobre entre cuando donde tiene
case cases judgment judgments court courts held holds appeal appeals relevant query issue issues legal section
because"""
_COMMON = frozenset(_COMMON_WORDS.split())


def borrowed_from_address(output: str, source: str) -> str | None:
    """A word of ``output`` that ``source`` has only in sentences addressed to an automated reader (None when
    there is none). A small model told to copy its sources' words copies a planted instruction with the rest;
    such a word in its output means it passed the instruction on, whether or not it obeyed it."""
    addressed: set[str] = set()
    plain: set[str] = set()
    for sentence in _SENTENCE_END.split(clean(source)):
        folded = sentence.casefold()
        (addressed if _ADDRESS.search(folded.translate(_CONFUSABLE)) else plain).update(_WORD.findall(folded))
    exclusive = addressed - plain - _COMMON
    return next((w for w in _WORD.findall(clean(output).casefold()) if w in exclusive), None)


def nonce() -> str:
    """A fresh random delimiter suffix for one prompt (48 bits: no document can guess it, and it is removed
    from the data anyway)."""
    return secrets.token_hex(6)


def without(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` removed, repeatedly (removing one occurrence can join two
    halves into another), so the result never contains it."""
    while secret and secret in text:
        text = text.replace(secret, "")
    return text


def fenced(text: str, secret: str) -> str:
    """A prompt field as it may go between delimiters carrying ``secret``: no special tokens, no invisible
    characters, no tag-like markers, no ``secret``. Applied by :class:`backends.llm.Prompt` to every field,
    whether or not the caller ran :func:`untrusted` (which also leaves out flagged sentences and cuts)."""
    text = clean(text)
    while secret in text:  # taking the secret out can join the halves of a marker: clean again
        text = clean(without(text, secret))
    return text
