"""The static site's builder: templates rendered with jinja2, the runtime files copied in, the
offline manifest written, and the docs' generated figures (`python -m site_builder.build`,
`python -m site_builder.serve`, `python -m site_builder.doc_numbers`)."""
