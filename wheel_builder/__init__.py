"""The attention-live wheel's build: the package with its assets copied in from their sources
(`python -m wheel_builder.build_wheel`, what `make wheel` runs). Not named `packaging`, which
would shadow PyPA's module of that name (setuptools imports it) wherever the checkout is on the path."""
