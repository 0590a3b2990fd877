# Convenience wrappers; the README's commands work without make.
.PHONY: demo test bench
demo:
	python3 tasks.py demo
test:
	python3 tasks.py test
bench:
	python3 tasks.py bench
