"""Export: checkpoint -> static/model/ (ONNX + tokenizer.json + meta.json + golden.json). `python -m export`."""
