"""The benchmark of the live page (`python -m bench.run` and `python -m bench.slow_link`, on emulated
slow links: what `make bench` runs), the A/B of its
cold start (`python -m bench.ab`) and the README's screenshot (`python -m bench.screenshot`)."""
