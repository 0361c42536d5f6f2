# A Sphinx book (Jupyter Book 1 is Sphinx underneath) whose chapters are MyST Markdown and
# show the live view. Before building, copy the view's files once:
#   python -m attention_live.assets _static/attention-live
#   python -m sphinx -b html . _build/html
project = "Attention, live"
extensions = ["myst_parser"]
html_static_path = ["_static"]
# A module script: the element's modules import each other, which only modules can.
html_js_files = [("attention-live/attention-view.js", {"type": "module"})]
exclude_patterns = ["_build", "_static"]
