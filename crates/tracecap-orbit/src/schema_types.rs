//! The shape of the static schema tables in [`crate::schema`].

/// A protobuf enum: its full name and its values in declaration order.
#[derive(Debug)]
pub struct EnumDesc {
    /// Full name, e.g. `orbit_grpc_protos.Callstack.CallstackType`.
    pub name: &'static str,
    /// `(name, number)` pairs.
    pub values: &'static [(&'static str, i32)],
}

impl EnumDesc {
    /// The name of value `v`, if declared.
    pub fn value_name(&self, v: i32) -> Option<&'static str> {
        self.values.iter().find(|(_, n)| *n == v).map(|(s, _)| *s)
    }
}

/// The type of a field.
#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// `uint32` (varint).
    Uint32,
    /// `uint64` (varint).
    Uint64,
    /// `int32` (varint, negative values as 10 bytes).
    Int32,
    /// `int64` (varint).
    Int64,
    /// `bool` (varint).
    Bool,
    /// `double` (fixed64).
    Double,
    /// `float` (fixed32).
    Float,
    /// `fixed64`.
    Fixed64,
    /// `string` (length-delimited, UTF-8).
    String,
    /// `bytes` (length-delimited).
    Bytes,
    /// An enum (varint).
    Enum(&'static EnumDesc),
    /// A nested message (length-delimited).
    Message(&'static MessageDesc),
}

impl FieldType {
    /// The wire type a single value of this type uses.
    pub fn wire_type(self) -> u8 {
        match self {
            FieldType::Uint32
            | FieldType::Uint64
            | FieldType::Int32
            | FieldType::Int64
            | FieldType::Bool
            | FieldType::Enum(_) => crate::wire::WIRE_VARINT,
            FieldType::Double | FieldType::Fixed64 => crate::wire::WIRE_FIXED64,
            FieldType::Float => crate::wire::WIRE_FIXED32,
            FieldType::String | FieldType::Bytes | FieldType::Message(_) => crate::wire::WIRE_LEN,
        }
    }

    /// True for scalar types that a `repeated` field packs.
    pub fn is_packable(self) -> bool {
        self.wire_type() != crate::wire::WIRE_LEN
    }
}

/// One field of a message.
#[derive(Debug)]
pub struct FieldDesc {
    /// Field name as in the schema (and in proto3 JSON with original names).
    pub name: &'static str,
    /// Field number.
    pub number: u32,
    /// Type.
    pub ty: FieldType,
    /// `repeated`.
    pub repeated: bool,
    /// Member of the message's (only) oneof.
    pub oneof: bool,
}

/// A message: its full name and fields in field-number order.
#[derive(Debug)]
pub struct MessageDesc {
    /// Full name, e.g. `orbit_grpc_protos.ClientCaptureEvent`.
    pub name: &'static str,
    /// Fields, ordered by number.
    pub fields: &'static [FieldDesc],
}

impl MessageDesc {
    /// The field with `number`.
    pub fn field(&self, number: u32) -> Option<&'static FieldDesc> {
        let i = self
            .fields
            .binary_search_by_key(&number, |f| f.number)
            .ok()?;
        self.fields.get(i)
    }
}
