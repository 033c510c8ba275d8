#!/usr/bin/env python3
"""Writes the family fixture models: tiny GGUF models with random weights, each with a model
family's real vocabulary and real chat template, for the tests that prove Tide's prompts and end
tokens for that family without its weights (docs/models.md, "Families").

  fixture-models.py --reference DIR --templates DIR --gemma-vocab FILE --out DIR

The vocabularies are llama.cpp's vocabulary-only test files (DIR/vocab/ggml-vocab-*.gguf) and,
for Gemma 3, the registry's gemma-3-270m file; the templates are llama.cpp's (DIR/templates) or,
for the two families llama.cpp keeps none of, the family's own (the --templates folder). llama.cpp's
test vocabularies hold placeholders where a family's later special tokens stand (`[PAD151667]`);
each family's are written in at their real ids, as the family's own tokenizer has them. Every
model has two layers of width 32 (a few MB, most of it the token embeddings); it loads and runs
in llama.cpp like a real model of its architecture, and its replies are noise.

Only the standard library and numpy; the GGUF reader and writer are below.
"""
import argparse
import os
import struct
import sys

import numpy as np

# GGUF value types.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
SCALARS = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f",
           BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}
F32, F16 = 0, 1
CONTROL, USER_DEFINED = 3, 4
ALIGNMENT = 32

QWEN_TOKENS = ["<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>",
               "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]
QWEN_USER_TOKENS = ["<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                    "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"]
QWEN3_USER_TOKENS = ["<tool_response>", "</tool_response>", "<think>", "</think>"]


def qwen_tokens(third):
    """Qwen 2.5's added tokens from id 151646 (Qwen 3's four more when `third`)."""
    tokens = [(151646 + i, text, CONTROL) for i, text in enumerate(QWEN_TOKENS)]
    tokens += [(151657 + i, text, USER_DEFINED) for i, text in enumerate(QWEN_USER_TOKENS)]
    if third:
        tokens += [(151665 + i, text, USER_DEFINED) for i, text in enumerate(QWEN3_USER_TOKENS)]
    return tokens


# name: (vocabulary, architecture, template, the family's tokens the vocabulary lacks: (id, text, type)).
FAMILIES = {
    "phi-3.5": ("vocab:phi-3", "phi3", "llama.cpp:microsoft-Phi-3.5-mini-instruct", []),
    # Phi-4-mini's own vocabulary (200k tokens) is not among llama.cpp's; its template and its tool
    # tokens stand on Phi-3's, whose role and end tokens it shares by text.
    "phi-4-mini": ("vocab:phi-3", "phi3", "own:microsoft-Phi-4-mini-instruct",
                   [(32002, "<|tool|>", CONTROL), (32003, "<|/tool|>", CONTROL), (32004, "<|tool_call|>", CONTROL),
                    (32005, "<|/tool_call|>", CONTROL), (32008, "<|tool_response|>", CONTROL)]),
    "llama-3.2": ("vocab:llama-bpe", "llama", "llama.cpp:meta-llama-Llama-3.2-3B-Instruct",
                  [(128008, "<|eom_id|>", CONTROL), (128010, "<|python_tag|>", CONTROL)]),
    "qwen-2.5": ("vocab:qwen2", "qwen2", "llama.cpp:Qwen-Qwen2.5-7B-Instruct", qwen_tokens(False)),
    "qwen-3": ("vocab:qwen2", "qwen3", "llama.cpp:Qwen-Qwen3-0.6B", qwen_tokens(True)),
    "gemma-3": ("gemma", "gemma3", "own:google-gemma-3-it", []),
    # DeepSeek R1's distillation onto Qwen 2.5: Qwen's vocabulary with DeepSeek's own special tokens.
    "deepseek-r1-qwen": ("vocab:qwen2", "qwen2", "llama.cpp:deepseek-ai-DeepSeek-R1-Distill-Qwen-32B",
                         [(151643, "<｜end▁of▁sentence｜>", CONTROL), (151644, "<｜User｜>", CONTROL),
                          (151645, "<｜Assistant｜>", CONTROL), (151646, "<｜begin▁of▁sentence｜>", CONTROL),
                          (151648, "<think>", USER_DEFINED), (151649, "</think>", USER_DEFINED)]),
}
# Metadata a family's tokenizer has otherwise than the vocabulary it stands on.
METADATA = {"deepseek-r1-qwen": [("tokenizer.ggml.bos_token_id", UINT32, 151646),
                                 ("tokenizer.ggml.add_bos_token", BOOL, True)]}



class Reader:
    """The metadata of a GGUF file (its tensors are not read)."""

    def __init__(self, path):
        with open(path, "rb") as file:
            self.data = file.read()
        self.offset = 0
        if self.take(4) != b"GGUF":
            sys.exit(f"{path} is not a GGUF file")
        version, _, count = struct.unpack("<IQQ", self.take(20))
        if version != 3:
            sys.exit(f"{path}: GGUF version {version}, not 3")
        self.fields = {}
        for _ in range(count):
            key = self.string()
            kind = self.scalar("<I")
            self.fields[key] = (kind, self.value(kind))

    def take(self, count):
        chunk = self.data[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def scalar(self, form):
        return struct.unpack(form, self.take(struct.calcsize(form)))[0]

    def string(self):
        return self.take(self.scalar("<Q")).decode("utf-8")

    def value(self, kind):
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            element, count = self.scalar("<I"), self.scalar("<Q")
            return (element, [self.value(element) for _ in range(count)])
        return self.scalar(SCALARS[kind])


class Writer:
    """A GGUF version 3 file: metadata, then tensors, each aligned to 32 bytes."""

    def __init__(self):
        self.fields = []
        self.tensors = []

    def add(self, key, kind, value):
        self.fields.append((key, kind, value))

    def tensor(self, name, array):
        self.tensors.append((name, np.ascontiguousarray(array)))

    @staticmethod
    def encode(kind, value):
        if kind == STRING:
            data = value.encode("utf-8")
            return struct.pack("<Q", len(data)) + data
        if kind == ARRAY:
            element, items = value
            return struct.pack("<IQ", element, len(items)) + b"".join(Writer.encode(element, item) for item in items)
        return struct.pack(SCALARS[kind], value)

    def write(self, path):
        out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(self.fields)))
        for key, kind, value in self.fields:
            out += self.encode(STRING, key) + struct.pack("<I", kind) + self.encode(kind, value)
        offset = 0
        for name, array in self.tensors:
            out += self.encode(STRING, name) + struct.pack("<I", array.ndim)
            out += b"".join(struct.pack("<Q", size) for size in reversed(array.shape))  # innermost first
            out += struct.pack("<IQ", F16 if array.dtype == np.float16 else F32, offset)
            offset += -(-array.nbytes // ALIGNMENT) * ALIGNMENT
        out += bytes(-len(out) % ALIGNMENT)
        for _, array in self.tensors:
            out += array.tobytes() + bytes(-array.nbytes % ALIGNMENT)
        partial = path + ".partial"
        with open(partial, "wb") as file:
            file.write(out)
        os.replace(partial, path)


def make(name, arguments):
    vocabulary, architecture, template, tokens = FAMILIES[name]
    source = (arguments.gemma_vocab if vocabulary == "gemma"
              else os.path.join(arguments.reference, "vocab", f"ggml-vocab-{vocabulary.split(':')[1]}.gguf"))
    origin, template_name = template.split(":")
    folder = os.path.join(arguments.reference, "templates") if origin == "llama.cpp" else arguments.templates
    with open(os.path.join(folder, template_name + ".jinja"), encoding="utf-8") as file:
        template_text = file.read()

    fields = Reader(source).fields
    texts = list(fields["tokenizer.ggml.tokens"][1][1])
    types = list(fields["tokenizer.ggml.token_type"][1][1])
    for token, text, kind in tokens:
        texts[token], types[token] = text, kind
    writer = Writer()
    writer.add("general.architecture", STRING, architecture)
    writer.add("general.name", STRING, f"Tide fixture: {name}")
    writer.add("general.file_type", UINT32, 1)  # mostly F16
    width, layers, heads, kv_heads, feed_forward, context = 32, 2, 2, 1, 64, 4096
    head = width // heads
    for key, kind, value in [("context_length", UINT32, context), ("embedding_length", UINT32, width),
                             ("block_count", UINT32, layers), ("feed_forward_length", UINT32, feed_forward),
                             ("attention.head_count", UINT32, heads), ("attention.head_count_kv", UINT32, kv_heads),
                             ("attention.layer_norm_rms_epsilon", FLOAT32, 1e-6), ("rope.freq_base", FLOAT32, 10000.0),
                             ("rope.dimension_count", UINT32, head)]:
        writer.add(f"{architecture}.{key}", kind, value)
    if architecture == "phi3":
        writer.add("phi3.rope.scaling.original_context_length", UINT32, context)
    if architecture == "gemma3":
        writer.add("gemma3.attention.sliding_window", UINT32, 512)
        writer.add("gemma3.attention.key_length", UINT32, head)
        writer.add("gemma3.attention.value_length", UINT32, head)
    replaced = {key: (kind, value) for key, kind, value in METADATA.get(name, [])}
    for key, (kind, value) in fields.items():
        if key.startswith("tokenizer.") and key != "tokenizer.chat_template" and key not in replaced:
            if key == "tokenizer.ggml.tokens":
                value = (STRING, texts)
            elif key == "tokenizer.ggml.token_type":
                value = (value[0], types)
            writer.add(key, kind, value)
    for key, (kind, value) in replaced.items():
        writer.add(key, kind, value)
    writer.add("tokenizer.chat_template", STRING, template_text)

    random = np.random.default_rng(sum(name.encode()))

    def weights(rows, columns):
        return (random.standard_normal((rows, columns), dtype=np.float32) * 0.1).astype(np.float16)

    def ones(count):
        return np.ones(count, dtype=np.float32)

    kv_width = kv_heads * head
    writer.tensor("token_embd.weight", weights(len(texts), width))
    writer.tensor("output_norm.weight", ones(width))
    if architecture == "phi3":
        writer.tensor("output.weight", weights(len(texts), width))
    for layer in range(layers):
        block = f"blk.{layer}."
        writer.tensor(block + "attn_norm.weight", ones(width))
        writer.tensor(block + "ffn_norm.weight", ones(width))
        writer.tensor(block + "attn_output.weight", weights(width, width))
        writer.tensor(block + "ffn_down.weight", weights(width, feed_forward))
        if architecture == "phi3":
            writer.tensor(block + "attn_qkv.weight", weights(width + 2 * kv_width, width))
            writer.tensor(block + "ffn_up.weight", weights(2 * feed_forward, width))
            continue
        writer.tensor(block + "attn_q.weight", weights(width, width))
        writer.tensor(block + "attn_k.weight", weights(kv_width, width))
        writer.tensor(block + "attn_v.weight", weights(kv_width, width))
        writer.tensor(block + "ffn_gate.weight", weights(feed_forward, width))
        writer.tensor(block + "ffn_up.weight", weights(feed_forward, width))
        if architecture == "qwen2":
            for part, size in [("q", width), ("k", kv_width), ("v", kv_width)]:
                writer.tensor(block + f"attn_{part}.bias", np.zeros(size, dtype=np.float32))
        if architecture in ("qwen3", "gemma3"):
            writer.tensor(block + "attn_q_norm.weight", ones(head))
            writer.tensor(block + "attn_k_norm.weight", ones(head))
        if architecture == "gemma3":
            writer.tensor(block + "post_attention_norm.weight", ones(width))
            writer.tensor(block + "post_ffw_norm.weight", ones(width))
    writer.write(os.path.join(arguments.out, f"{name}.gguf"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True, help="llama.cpp's reference files (templates/, vocab/)")
    parser.add_argument("--templates", required=True, help="the templates llama.cpp does not keep")
    parser.add_argument("--gemma-vocab", required=True, help="a Gemma 3 GGUF (its tokenizer is used)")
    parser.add_argument("--out", required=True)
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    for name in FAMILIES:
        make(name, arguments)
        print(f"fixture-models: wrote {name}.gguf")


if __name__ == "__main__":
    main()
