#!/usr/bin/env python3
"""Converts a BERT sentence encoder (sentence-transformers' layout: config.json, model.safetensors,
tokenizer.json and 1_Pooling/config.json in one folder) into a GGUF file that llama.cpp runs as an
embedding model, as llama.cpp's own convert_hf_to_gguf.py does for BERT, without its PyTorch.

    convert-encoder.py FOLDER OUTPUT.gguf NAME

Matrices are written as F16, vectors (biases, norms) and the position and token-type embeddings
as F32. The WordPiece vocabulary is written
as llama.cpp's "bert" tokenizer expects it: a word-initial piece gets the phantom space U+2581,
a continuation ("##ing") loses its marker, a bracketed token ("[unused0]") is kept as it is, and
the special ones ([CLS], [SEP], …) are control tokens.
The pooling is the one the model's pooling module names (mean, CLS or last). The output is the
same bytes for the same input (scripts/setup.sh checks its SHA-256).

Needs the `gguf`, `safetensors` and `numpy` packages (scripts/setup.sh installs pinned versions
into a virtual environment of their own).
"""
import json
import sys
from pathlib import Path

import gguf
import numpy
from safetensors.numpy import load_file


def pooling(folder: Path) -> int:
    """The pooling of the model's pooling module, as llama.cpp numbers it."""
    config = json.loads((folder / "1_Pooling" / "config.json").read_text())
    if config.get("pooling_mode_mean_tokens"):
        return gguf.PoolingType.MEAN
    if config.get("pooling_mode_cls_token"):
        return gguf.PoolingType.CLS
    if config.get("pooling_mode_lasttoken"):
        return gguf.PoolingType.LAST
    sys.exit(f"convert-encoder: {folder}/1_Pooling/config.json names a pooling llama.cpp does not have: {config}")


def vocabulary(folder: Path) -> tuple[list[str], list[int]]:
    """The WordPiece vocabulary in id order, in llama.cpp's spelling, with each token's type."""
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    if tokenizer["model"]["type"] != "WordPiece":
        sys.exit(f"convert-encoder: {folder}/tokenizer.json is a {tokenizer['model']['type']} tokenizer, not WordPiece")
    by_id = sorted(tokenizer["model"]["vocab"].items(), key=lambda item: item[1])
    if [index for _, index in by_id] != list(range(len(by_id))):
        sys.exit(f"convert-encoder: {folder}/tokenizer.json's vocabulary has gaps in its ids")
    special = {token["content"] for token in tokenizer.get("added_tokens", []) if token.get("special")}
    tokens, types = [], []
    for text, _ in by_id:
        if text in special:
            tokens.append(text)
            types.append(gguf.TokenType.CONTROL)
        elif text.startswith("[") and text.endswith("]"):
            tokens.append(text)  # [unused0] and the like: kept as they are
            types.append(gguf.TokenType.NORMAL)
        elif text.startswith("##"):
            tokens.append(text[2:])
            types.append(gguf.TokenType.NORMAL)
        else:
            tokens.append("\u2581" + text)
            types.append(gguf.TokenType.NORMAL)
    return tokens, types


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit("usage: convert-encoder.py FOLDER OUTPUT.gguf NAME")
    folder, output, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    config = json.loads((folder / "config.json").read_text())
    if config.get("model_type") != "bert":
        sys.exit(f"convert-encoder: {folder}/config.json is a {config.get('model_type')!r} model; only BERT encoders are converted")
    blocks = config["num_hidden_layers"]
    writer = gguf.GGUFWriter(str(output), "bert")
    writer.add_name(name)
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(blocks)
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(pooling(folder))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    tokens, types = vocabulary(folder)
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("bert-bge")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_type_count(config.get("type_vocab_size", 2))
    # A text is read as [CLS] … [SEP]: llama.cpp takes the beginning-of-sequence token for [CLS].
    for text, add in [("[UNK]", writer.add_unk_token_id), ("[SEP]", writer.add_sep_token_id), ("[PAD]", writer.add_pad_token_id),
                      ("[CLS]", writer.add_bos_token_id), ("[MASK]", writer.add_mask_token_id)]:
        if text not in tokens:
            sys.exit(f"convert-encoder: {folder}/tokenizer.json has no {text} token")
        add(tokens.index(text))

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, blocks)
    tensors = load_file(str(folder / "model.safetensors"))
    for key in sorted(tensors):
        if key.endswith("position_ids") or key.startswith("pooler."):
            continue  # the positions are implicit; llama.cpp pools itself
        mapped = names.get_name(key, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            sys.exit(f"convert-encoder: {key} is no tensor of llama.cpp's BERT")
        data = tensors[key]
        # The token-type rows are added to the input as they are, which llama.cpp does in F32 only.
        half = data.ndim == 2 and mapped not in ("token_types.weight", "position_embd.weight")
        data = data.astype(numpy.float16 if half else numpy.float32)
        writer.add_tensor(mapped, data)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
