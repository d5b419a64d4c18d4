"""The 3D preview of a product: one row per catalog product with its glTF asset."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class Model3D(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        status = pw.CharField(max_length=16)
        source = pw.TextField(default="")
        texture = pw.CharField(max_length=16, null=True)
        description = pw.TextField(null=True)
        gltf = pw.TextField(null=True)
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "model3d"

    db.create_tables([Model3D])
