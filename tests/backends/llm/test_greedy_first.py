"""The in-process model's JSON answers are token for token those of llama-cpp-python's own sampler chain: the
greedy-first grammar check (:func:`backends.llm.local._greedy_first_llama`) only saves the work of testing
every vocabulary entry against the grammar when the model's best token is allowed anyway."""

from __future__ import annotations

from pathlib import Path

from backends.llm import Message

SCHEMA = {"type": "object", "properties": {"issue": {"type": "string"}, "sections": {
    "type": "array", "items": {"type": "integer"}}}, "required": ["issue", "sections"]}
# Prose asked for, JSON enforced: the model's own first tokens break the grammar, so the answer takes the
# fallback (the grammar over the whole vocabulary) as well as the greedy-first path.
MESSAGES = [Message("system", "You are a helpful assistant. Answer in plain sentences."),
            Message("user", "In two sentences, which sections of the Indian Penal Code cover a dowry death "
                            "by burns, and why?")]


def test_json_answers_are_those_of_the_plain_sampler_chain(uncached_llm, small_gguf: Path) -> None:
    from llama_cpp import Llama

    plain = Llama(model_path=str(small_gguf), n_ctx=4096, n_threads=uncached_llm._llama.n_threads, seed=0,
                  verbose=False)
    try:
        expected = plain.create_chat_completion(
            messages=[m.as_dict() for m in MESSAGES], max_tokens=48, temperature=0.0,
            response_format={"type": "json_object", "schema": SCHEMA})["choices"][0]["message"]["content"]
    finally:
        plain.close()
    assert type(uncached_llm._llama) is not Llama  # the greedy-first subclass is what is compared
    answer = uncached_llm.chat(MESSAGES, max_tokens=48, schema=SCHEMA)
    assert answer == expected
    assert answer.lstrip().startswith("{") and '"issue"' in answer  # JSON, though prose was asked for
