"""llama.cpp's own log-probabilities for a text, through llama-cpp-python's bindings of the same
library: the reference that LogprobsTests compares `tide serve`'s with.

Usage: python reference_logprobs.py MODEL.gguf JSON
JSON holds "prompt" (plain text, tokenized as Tide tokenizes a raw prompt: the model's BOS if it
wants one, control tokens left as text), "continuation" (the texts of the tokens that followed,
each one token of the vocabulary) and "top" (how many of the likeliest tokens to give). The
prompt is decoded as one batch and each continuation token alone, as Tide decodes them.
Prints, as JSON, the prompt's token texts and, for every token after the first, its
log-probability and the likeliest [text, log-probability] pairs.
"""
import json
import sys

import numpy as np
from llama_cpp import Llama


def main():
    path, request = sys.argv[1], json.loads(sys.argv[2])
    model = Llama(path, logits_all=True, n_ctx=1024, n_batch=1024, flash_attn=True, verbose=False)
    text = lambda token: model.detokenize([token]).decode("utf-8", errors="replace")
    prompt = model.tokenize(request["prompt"].encode(), add_bos=True, special=False)
    ids = {text(token): token for token in reversed(range(model.n_vocab()))}
    continuation = [ids[piece] for piece in request["continuation"]]
    model.eval(prompt)
    for token in continuation:
        model.eval([token])
    tokens = prompt + continuation
    logits = np.asarray(model.scores[: len(tokens)], dtype=np.float64)
    positions = []
    for index in range(1, len(tokens)):
        row = logits[index - 1]
        best = row.max()
        logprobs = row - (best + np.log(np.exp(row - best).sum()))
        top = np.argsort(-logprobs, kind="stable")[: request["top"]]
        positions.append({
            "logprob": float(logprobs[tokens[index]]),
            "top": [[text(int(token)), float(logprobs[token])] for token in top],
        })
    print(json.dumps({"prompt": [text(token) for token in prompt], "positions": positions}))


main()
