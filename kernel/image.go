// This file defines how images leaving a cell are checked and downscaled,
// so that one plot cannot flood the client.

package kernel

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
)

// fitImage decodes an image, downscales it to at most maxImageSide pixels
// on its longest side, and re-encodes it in its own format. It returns the
// (possibly unchanged) bytes and their dimensions.
func fitImage(data []byte, mime string) ([]byte, int, int, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("decoding the %s image: %w", mime, err)
	}
	if wantFormat := map[string]string{"image/png": "png", "image/jpeg": "jpeg"}[mime]; wantFormat != format {
		return nil, 0, 0, fmt.Errorf("the image says %s but its bytes are %s", mime, format)
	}
	if cfg.Width <= maxImageSide && cfg.Height <= maxImageSide && len(data) <= maxImageSize {
		return data, cfg.Width, cfg.Height, nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("decoding the %s image: %w", mime, err)
	}
	side := maxImageSide
	for {
		small := downscale(img, side)
		var buf bytes.Buffer
		if format == "png" {
			err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, small)
		} else {
			err = jpeg.Encode(&buf, small, &jpeg.Options{Quality: 85})
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("encoding the downscaled image: %w", err)
		}
		b := small.Bounds()
		if buf.Len() <= maxImageSize || side <= 128 {
			return buf.Bytes(), b.Dx(), b.Dy(), nil
		}
		side /= 2
	}
}

// downscale shrinks img so that its longest side is at most side pixels,
// averaging the source pixels that fall into each destination pixel.
func downscale(img image.Image, side int) image.Image {
	sb := img.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	if sw <= side && sh <= side {
		return img
	}
	dw, dh := side, side
	if sw >= sh {
		dh = max(1, sh*side/sw)
	} else {
		dw = max(1, sw*side/sh)
	}
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		y0, y1 := sb.Min.Y+y*sh/dh, sb.Min.Y+max((y+1)*sh/dh, y*sh/dh+1)
		for x := range dw {
			x0, x1 := sb.Min.X+x*sw/dw, sb.Min.X+max((x+1)*sw/dw, x*sw/dw+1)
			var r, g, b, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					c := color.NRGBAModel.Convert(img.At(sx, sy)).(color.NRGBA)
					r, g, b, a = r+uint64(c.R), g+uint64(c.G), b+uint64(c.B), a+uint64(c.A)
					n++
				}
			}
			dst.SetNRGBA(x, y, color.NRGBA{R: uint8(r / n), G: uint8(g / n), B: uint8(b / n), A: uint8(a / n)})
		}
	}
	return dst
}
