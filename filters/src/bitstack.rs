//! A stack of booleans for [`crate::lex`]'s iterative skip: which open
//! containers are objects, at any nesting depth, without recursion.

/// A stack of bits: 64 inline, the rest spilled to the heap.
#[derive(Default)]
pub(crate) struct BitStack {
    bits: u64,
    len: usize,
    spill: Vec<u64>,
}

impl BitStack {
    pub(crate) fn push(&mut self, bit: bool) {
        if self.len > 0 && self.len.is_multiple_of(64) {
            self.spill.push(self.bits);
        }
        let at = self.len % 64;
        self.bits = (self.bits & !(1 << at)) | (u64::from(bit) << at);
        self.len += 1;
    }

    pub(crate) fn top(&self) -> Option<bool> {
        let last = self.len.checked_sub(1)?;
        Some(self.bits >> (last % 64) & 1 == 1)
    }

    pub(crate) fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
        if self.len > 0 && self.len.is_multiple_of(64) {
            self.bits = self.spill.pop().unwrap_or(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_bits_across_spills() {
        let mut stack = BitStack::default();
        let bits: Vec<bool> = (0..300).map(|i| i % 3 == 0 || i % 7 == 0).collect();
        for &bit in &bits {
            stack.push(bit);
            assert_eq!(stack.top(), Some(bit));
        }
        for &bit in bits.iter().rev() {
            assert_eq!(stack.top(), Some(bit));
            stack.pop();
        }
        assert_eq!(stack.top(), None);
    }
}
