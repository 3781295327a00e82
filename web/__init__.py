"""The table page: Flask app, persistence, and the tableref command line."""
