"""A page of its own, with nothing fetched and no script but its own inline charts':
`wirespeed compare` and `wirespeed trend` as HTML, a result document (a soak's draws
its timeline). The run's report is a page with plots (report/html.py)."""

from __future__ import annotations

from html import escape


def static_page(title: str, style: str, body: str, *, scripts: bool = False) -> str:
    """The whole page: `title` (plain text, escaped) in its head, `style` and `body`
    (markup) as they are. Its Content-Security-Policy allows its inline style alone,
    and with `scripts` its inline scripts (a timeline's chart)."""
    script_src = "script-src 'unsafe-inline'; " if scripts else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        f"{script_src}style-src 'unsafe-inline'\">"
        '<meta name="generator" content="wirespeed">'
        f"<title>{escape(title, quote=True)} \N{EN DASH} wirespeed</title>"
        f"<style>{style}</style></head><body>{body}</body></html>\n"
    )
