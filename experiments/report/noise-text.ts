/** The report's noise language for a two-proportion p-value ("p=0.012, beyond noise" / "p=0.41, within noise"). */
export const noiseText = (p: number): string =>
  p < 0.05 ? `p=${p.toFixed(3)}, beyond noise` : `p=${p.toFixed(2)}, within noise`;
