"""The Parley web service: Flask app, API blueprints, schemas, auth, signatures, store."""
