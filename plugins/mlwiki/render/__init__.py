"""Renderers: wiki records -> Markdown/HTML/SVG strings for the site. No mkdocs import here.

Every string that comes from frontmatter or JSON goes through :func:`mlwiki.render.html.esc`
before it lands in HTML or SVG.
"""
