"""Pictures of the tables for ``render_mode="rgb_array"`` (Pillow; ``pip install -e '.[render]'``)."""
