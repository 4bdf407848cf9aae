# The two commands of the README. Both work on a fresh machine (Debian/Ubuntu as root installs the
# system packages itself; elsewhere scripts/setup.sh names what to install).
.PHONY: demo test lint

demo:
	bash scripts/setup.sh embed,web
	.venv/bin/ratio opensearch start
	.venv/bin/ratio indices create
	.venv/bin/ratio index samples/aila-2019
	.venv/bin/ratio search "public servant entrusted with property dishonestly misappropriated it"
	.venv/bin/ratio status

test:
	bash scripts/setup.sh embed,web,llm,llm-small,eval,train,ray,dev
	.venv/bin/ruff check .
	.venv/bin/pytest

lint:
	.venv/bin/ruff check .
