import type { ImageView } from '../../api.js';
import { useApi } from '../util.js';

/** The page images the model was shown, as thumbnails, evidence pages marked; a click opens the full scan (live only). */
export function PageImages({ run, images }: { run: string; images: ImageView[] }) {
  const api = useApi();
  if (!images.length) return null;
  const evidence = images.filter((i) => i.evidence).length;
  return (
    <>
      <h3>
        Page images shown to the model ({images.length}
        {evidence ? `, ${evidence} evidence` : ''})
      </h3>
      <ol class="page-images">
        {images.map((image) => {
          const thumb = api.imageUrl(run, image, 'thumb');
          const full = api.imageUrl(run, image, 'full');
          const label = `${image.docId} 第${image.page}页`;
          const picture = thumb ? <img src={thumb} alt={label} loading="lazy" /> : <span class="no-image">{image.dir === null ? 'folder not listed in the run manifest' : 'not in this bundle'}</span>;
          return (
            <li class={`page-image${image.evidence ? ' evidence' : ''}`} data-evidence={image.evidence ? 'true' : 'false'}>
              {full ? (
                <a href={full} target="_blank" rel="noopener" title={`${image.path} · ${image.width}×${image.height}`}>
                  {picture}
                </a>
              ) : (
                picture
              )}
              <div class="page-caption">
                {label}
                {image.evidence ? <span class="badge gold-badge">evidence</span> : null}
              </div>
            </li>
          );
        })}
      </ol>
    </>
  );
}
