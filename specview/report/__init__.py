"""What the kernel's numbers look like to a reader: `bench --json` and `replay --json`'s stats
object (run_json.py), the compare summary's leaders (leaders.py), run names that tell runs apart
(run_names.py), the order the stream shows a round's tokens in (display_order.py), and a run's
decisions and findings in words (sentences.py).

Above the kernel (pure maths and data), below every engine, screen and command that prints."""
