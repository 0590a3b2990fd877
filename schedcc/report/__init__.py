"""The HTML report (``schedcc report``): one self-contained page per program."""

from .html import report_html
from .kernel import KernelPicture, kernel_pictures, loop_blocks

__all__ = ["report_html", "KernelPicture", "kernel_pictures", "loop_blocks"]
