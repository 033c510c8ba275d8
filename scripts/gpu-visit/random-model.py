#!/usr/bin/env python3
"""Write a GGUF model with random weights and a real tokenizer, for speed and plumbing checks on a
machine the real weights cannot reach (scripts/gpu-visit.sh).

The tokenizer (every `tokenizer.*` key) is copied from a vocab-only or full GGUF; the weights are
random F16 (or F32 for norms). Outputs are nonsense; speeds are those of a real model of that shape.
With --tokenizer-only, only the tokenizer is written (a vocab-only file to carry instead of a model).
Needs numpy and llama.cpp's gguf-py (GGUF_PY=<llama.cpp>/gguf-py).

  random-model.py --vocab ggml-vocab-phi-3.gguf --arch phi3 --n-embd 3072 --n-layer 32 --n-head 32 \
      --n-ff 8192 --ctx 4096 --template phi35.jinja --out phi3-mini-random-f16.gguf
  random-model.py --vocab SmolLM2-135M-Instruct.Q8_0.gguf --tokenizer-only --out smollm2-vocab.gguf
"""
import argparse, sys, os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
for candidate in (os.environ.get("GGUF_PY"), os.path.join(here, "gguf-py")):
    if candidate and os.path.isdir(candidate):
        sys.path.insert(0, candidate)
import gguf  # noqa: E402
from gguf import GGUFReader, GGUFWriter, GGUFValueType  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--vocab", required=True)
p.add_argument("--arch", choices=["llama", "phi3"], default="llama")
p.add_argument("--tokenizer-only", action="store_true")
p.add_argument("--n-embd", type=int, default=0)
p.add_argument("--n-layer", type=int, default=0)
p.add_argument("--n-head", type=int, default=1)
p.add_argument("--n-head-kv", type=int, default=0)
p.add_argument("--n-ff", type=int, default=0)
p.add_argument("--ctx", type=int, default=4096)
p.add_argument("--template", default="")
p.add_argument("--name", default="random")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--out", required=True)
a = p.parse_args()
if not a.tokenizer_only and not (a.n_embd and a.n_layer and a.n_ff):
    p.error("--n-embd, --n-layer and --n-ff are needed for a model")
n_head_kv = a.n_head_kv or a.n_head
head_dim = a.n_embd // a.n_head
rng = np.random.default_rng(a.seed)

reader = GGUFReader(a.vocab)
writer = GGUFWriter(a.out, a.arch)
n_vocab = None
for name, field in reader.fields.items():
    if not name.startswith("tokenizer."):
        continue
    if name == "tokenizer.chat_template" and a.template:
        continue
    vtype = field.types[0]
    sub = field.types[-1] if vtype == GGUFValueType.ARRAY else None
    value = field.contents()
    if name == "tokenizer.ggml.tokens":
        n_vocab = len(value)
    writer.add_key_value(name, value, vtype, sub)
if n_vocab is None:
    sys.exit("the vocab file has no tokenizer.ggml.tokens")
if a.template:
    writer.add_chat_template(open(a.template, encoding="utf-8").read())
if a.tokenizer_only:
    writer.add_name(a.name)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    print(f"wrote {a.out}: the tokenizer of {a.vocab}, vocab {n_vocab}")
    sys.exit(0)

writer.add_name(a.name)
writer.add_context_length(a.ctx)
writer.add_embedding_length(a.n_embd)
writer.add_block_count(a.n_layer)
writer.add_feed_forward_length(a.n_ff)
writer.add_head_count(a.n_head)
writer.add_head_count_kv(n_head_kv)
writer.add_layer_norm_rms_eps(1e-5)
writer.add_rope_dimension_count(head_dim)
writer.add_rope_freq_base(10000.0)
writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
if a.arch == "phi3":
    writer.add_uint32("phi3.rope.scaling.original_context_length", a.ctx)


POOL = (rng.standard_normal(1 << 24, dtype=np.float32) * 0.02).astype(np.float16)


def w(*shape):  # numpy (out, in); random values drawn from one pool, so big models are quick to write
    n = int(np.prod(shape))
    reps = -(-n // POOL.size)
    start = int(rng.integers(0, POOL.size))
    flat = np.roll(np.tile(POOL, reps)[: n + 0], start % 997)[:n] if reps > 1 else np.roll(POOL, start)[:n]
    return flat.reshape(shape).copy()


def norm(n):
    return np.ones(n, dtype=np.float32)


kv = n_head_kv * head_dim
writer.add_tensor("token_embd.weight", w(n_vocab, a.n_embd))
for i in range(a.n_layer):
    b = f"blk.{i}."
    writer.add_tensor(b + "attn_norm.weight", norm(a.n_embd))
    if a.arch == "phi3":
        writer.add_tensor(b + "attn_qkv.weight", w(a.n_embd + 2 * kv, a.n_embd))
        writer.add_tensor(b + "ffn_up.weight", w(2 * a.n_ff, a.n_embd))
    else:
        writer.add_tensor(b + "attn_q.weight", w(a.n_embd, a.n_embd))
        writer.add_tensor(b + "attn_k.weight", w(kv, a.n_embd))
        writer.add_tensor(b + "attn_v.weight", w(kv, a.n_embd))
        writer.add_tensor(b + "ffn_gate.weight", w(a.n_ff, a.n_embd))
        writer.add_tensor(b + "ffn_up.weight", w(a.n_ff, a.n_embd))
    writer.add_tensor(b + "attn_output.weight", w(a.n_embd, a.n_embd))
    writer.add_tensor(b + "ffn_norm.weight", norm(a.n_embd))
    writer.add_tensor(b + "ffn_down.weight", w(a.n_embd, a.n_ff))
writer.add_tensor("output_norm.weight", norm(a.n_embd))
writer.add_tensor("output.weight", w(n_vocab, a.n_embd))

writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_tensors_to_file()
writer.close()
print(f"wrote {a.out}: {a.arch}, vocab {n_vocab}, {a.n_layer} layers x {a.n_embd}")
