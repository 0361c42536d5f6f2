# The live view in marimo (anywidget's own support): `marimo edit` or `marimo run` this file.
import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo

    from attention_live import AttentionView

    view = mo.ui.anywidget(AttentionView(text="The Queen turned to Alice and said", layer=2, head=3))
    view  # noqa: B018 (marimo shows a cell's last expression)
    return mo, view


@app.cell
def _(mo):
    to_layer_1 = mo.ui.button(label="show layer 1", value=0, on_click=lambda n: n + 1)
    to_layer_1  # noqa: B018
    return (to_layer_1,)


@app.cell
def _(to_layer_1, view):
    # Python sets a trait: the view redraws.
    if to_layer_1.value:
        view.widget.layer = 1
    return


@app.cell
def _(mo, view):
    # Runs again whenever the reader changes the view (marimo reacts to the widget's value).
    mo.md(f"pinned token: **{view.value.get('token')}**, layer {view.value.get('layer')}")
    return


if __name__ == "__main__":
    app.run()
