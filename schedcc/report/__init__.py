"""The HTML report (``schedcc report``): one self-contained page per program."""

from schedcc.report.html import report_html
from schedcc.report.kernel import KernelPicture, kernel_pictures, loop_blocks

__all__ = ["report_html", "KernelPicture", "kernel_pictures", "loop_blocks"]
