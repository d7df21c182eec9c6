//! Values that cross the sandbox's boundary to and from a *host function* of a kernel
//! crate (`histogram_sequential`, `choose_strategy`, ...: the exercises that are plain
//! Rust, not kernels).
//!
//! On the emulator such a function runs in the sandbox like a kernel does (`#[gpu::host]`
//! exports it from the WebAssembly build): the host encodes the arguments as bytes, the
//! lane decodes them, runs the function and encodes its result. The encoding is the
//! plainest there is: little-endian integers, a length before a byte string.

/// A value a host function takes or returns in the sandbox.
pub trait HostValue: Sized {
    /// Appends the value's bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// Takes a value from the front of `input`; `None` if the bytes are not one.
    fn take(input: &mut &[u8]) -> Option<Self>;
}

/// An argument of a host function: a [`HostValue`], or a borrowed byte slice (which the
/// lane receives as a `Vec<u8>` and lends to the function).
pub trait HostArg {
    /// Appends the argument's bytes.
    fn put_arg(&self, out: &mut Vec<u8>);
}

impl<T: HostValue> HostArg for T {
    fn put_arg(&self, out: &mut Vec<u8>) {
        self.put(out)
    }
}

impl HostArg for &[u8] {
    fn put_arg(&self, out: &mut Vec<u8>) {
        (self.len() as u32).put(out);
        out.extend_from_slice(self);
    }
}

/// A slice of `u32` or `f32` (a reduction's input): its length, then each element.
macro_rules! slice_arg {
    ($($t:ty),*) => {$(
        impl HostArg for &[$t] {
            fn put_arg(&self, out: &mut Vec<u8>) {
                (self.len() as u32).put(out);
                for x in self.iter() {
                    x.put(out);
                }
            }
        }

        impl HostValue for Vec<$t> {
            fn put(&self, out: &mut Vec<u8>) {
                self.as_slice().put_arg(out);
            }
            fn take(input: &mut &[u8]) -> Option<Self> {
                let n = u32::take(input)? as usize;
                if input.len() / core::mem::size_of::<$t>() < n {
                    return None;
                }
                (0..n).map(|_| <$t>::take(input)).collect()
            }
        }
    )*};
}
slice_arg!(u32, f32);

fn split<'a>(input: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if input.len() < n {
        return None;
    }
    let (head, tail) = input.split_at(n);
    *input = tail;
    Some(head)
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl HostValue for $t {
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn take(input: &mut &[u8]) -> Option<Self> {
                let b = split(input, core::mem::size_of::<$t>())?;
                Some(<$t>::from_le_bytes(b.try_into().ok()?))
            }
        }
    )*};
}
int_value!(u8, u16, u32, u64, i32, i64, f32, f64);

impl HostValue for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(*self as u8);
    }
    fn take(input: &mut &[u8]) -> Option<Self> {
        Some(split(input, 1)?[0] != 0)
    }
}

impl HostValue for Vec<u8> {
    fn put(&self, out: &mut Vec<u8>) {
        self.as_slice().put_arg(out);
    }
    fn take(input: &mut &[u8]) -> Option<Self> {
        let n = u32::take(input)? as usize;
        Some(split(input, n)?.to_vec())
    }
}

impl<T: HostValue + Copy + Default, const N: usize> HostValue for [T; N] {
    fn put(&self, out: &mut Vec<u8>) {
        for x in self {
            x.put(out);
        }
    }
    fn take(input: &mut &[u8]) -> Option<Self> {
        let mut a = [T::default(); N];
        for x in &mut a {
            *x = T::take(input)?;
        }
        Some(a)
    }
}

/// The argument tuple of a host function.
pub trait HostArgs {
    /// The arguments' bytes, in order.
    fn bytes(&self) -> Vec<u8>;
}

macro_rules! host_args {
    ($(($($n:ident),*)),*) => {$(
        impl<$($n: HostArg),*> HostArgs for ($($n,)*) {
            #[allow(non_snake_case, unused_mut)]
            fn bytes(&self) -> Vec<u8> {
                let ($($n,)*) = self;
                let mut out = Vec::new();
                $($n.put_arg(&mut out);)*
                out
            }
        }
    )*};
}
host_args!((), (A), (A, B), (A, B, C), (A, B, C, D));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let mut out = Vec::new();
        7u32.put(&mut out);
        (&b"abc"[..]).put_arg(&mut out);
        [1u32, 2, 3].put(&mut out);
        true.put(&mut out);
        let mut input = &out[..];
        assert_eq!(u32::take(&mut input), Some(7));
        assert_eq!(Vec::<u8>::take(&mut input), Some(b"abc".to_vec()));
        assert_eq!(<[u32; 3]>::take(&mut input), Some([1, 2, 3]));
        assert_eq!(bool::take(&mut input), Some(true));
        assert!(input.is_empty());
        assert_eq!(u32::take(&mut &[1u8, 2][..]), None);
    }

    #[test]
    fn slices_of_words_round_trip_and_a_short_one_is_refused() {
        let mut out = Vec::new();
        (&[1u32, u32::MAX][..]).put_arg(&mut out);
        (&[0.5f32, -2.0][..]).put_arg(&mut out);
        let mut input = &out[..];
        assert_eq!(Vec::<u32>::take(&mut input), Some(vec![1, u32::MAX]));
        assert_eq!(Vec::<f32>::take(&mut input), Some(vec![0.5, -2.0]));
        assert!(input.is_empty());
        // A length of 3 with two words behind it.
        let short = [3u8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0];
        assert_eq!(Vec::<u32>::take(&mut &short[..]), None);
    }
}
