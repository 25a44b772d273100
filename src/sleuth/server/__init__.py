"""`sleuth serve`: the HTTP daemon (FastAPI + uvicorn) holding indexes hot in memory.

Importing this package is free: ``client.py`` uses only the standard library, and
FastAPI loads only in ``app.py`` when a daemon starts.
"""
