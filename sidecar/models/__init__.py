"""Models run on CPU through onnxruntime + tokenizers: embedder, re-ranker, NLI, and the builder."""
