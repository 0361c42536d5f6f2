"""Training: corpus -> byte-level BPE tokenizer + checkpoint. Run in place: `python -m train`."""
