"""The stream process (SSE and long polls), apart from the web processes."""
