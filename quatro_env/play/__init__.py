"""The live table: ``quatro-play`` (Starlette + uvicorn; ``pip install 'quatro-env[play]'``)."""
