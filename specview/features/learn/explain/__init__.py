"""The numbers behind each Learn screen, one module per topic, Textual-free.

Every module offers a `…_numbers(**controls)` function returning plain JSON data: the screen
shows exactly these values and `specview learn N --json` prints them at the default controls.
"""
