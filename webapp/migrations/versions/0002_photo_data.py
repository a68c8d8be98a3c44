"""Photos' bytes in the database (``photo_data``), so that every node serves every photo.

A database adopted from before migrations kept its photos as files under ``instance/photos``:
those that are still there are copied in (the files are left where they were, to be removed
by hand once the copy is checked); a photo whose file is gone stays a row without bytes and
answers 404, as it did.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import context, op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    photo_data = op.create_table(
        "photo_data",
        sa.Column("photo_id", sa.String(length=32), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["photo_id"],
            ["photos.id"],
            name=op.f("fk_photo_data_photo_id_photos"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("photo_id", name=op.f("pk_photo_data")),
    )
    folder: Path | None = context.config.attributes.get("photo_folder")
    if folder is None or not folder.is_dir():
        return
    bind = op.get_bind()
    for photo_id, filename in bind.execute(sa.text("SELECT id, filename FROM photos")):
        path = folder / Path(filename).name
        if path.is_file():
            bind.execute(photo_data.insert().values(photo_id=photo_id, data=path.read_bytes()))


def downgrade() -> None:
    op.drop_table("photo_data")
