"""The live table: ``quatro-play`` (Starlette + uvicorn; ``pip install -e '.[play]'``)."""
