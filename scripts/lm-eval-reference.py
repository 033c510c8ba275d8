"""Checks what EleutherAI's lm-evaluation-harness computed through `tide serve` against llama.cpp's
own scores (scripts/lm-eval.sh runs it).

Usage: python lm-eval-reference.py MODEL.gguf SAMPLES.jsonl
SAMPLES is the harness's --log_samples file of a multiple-choice task. For each choice, the
log-likelihood of its text after the question is computed again from llama.cpp's scores, through
llama-cpp-python's bindings (of the library LLAMA_CPP_LIB_PATH names): the question and choice
tokenized together as the server tokenizes a prompt, the choice being the tokens after the
question's own, the whole decoded in one batch. Prints, as JSON, the harness's accuracy, the
reference's, and the largest difference between a choice's two log-likelihoods.
"""
import json
import sys

import numpy as np
from llama_cpp import Llama


def main():
    path, samples = sys.argv[1], [json.loads(line) for line in open(sys.argv[2])]
    model = Llama(path, logits_all=True, n_ctx=1024, n_batch=1024, flash_attn=True, verbose=False)
    tokenize = lambda text: model.tokenize(text.encode(), add_bos=True, special=True)
    largest, correct, harness = 0.0, 0, 0.0
    for sample in samples:
        likelihoods = []
        for index, arguments in enumerate(sample["arguments"].values()):
            context, continuation = arguments["arg_0"], arguments["arg_1"]
            whole, start = tokenize(context + continuation), len(tokenize(context))
            model.reset()
            model.eval(whole)
            logits = np.asarray(model.scores[: len(whole)], dtype=np.float64)
            total = 0.0
            for position in range(start, len(whole)):
                row = logits[position - 1]
                best = row.max()
                total += row[whole[position]] - (best + np.log(np.exp(row - best).sum()))
            likelihoods.append(total)
            largest = max(largest, abs(total - float(sample["resps"][index][0][0])))
        correct += int(np.argmax(likelihoods) == int(sample["target"]))
        harness += sample["acc"]
    print(json.dumps({"items": len(samples), "harness_accuracy": harness / len(samples),
                      "reference_accuracy": correct / len(samples), "largest_difference": largest}))


main()
